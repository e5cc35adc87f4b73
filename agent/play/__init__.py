"""What runs games, a package per runtime (issue 36): IRC tables (:mod:`agent.play.irc`),
ACPC matches (:mod:`agent.play.acpc`) and offline running without a network
(:mod:`agent.play.offline`: the in-process dealer, duplicate tournaments, the replay runner,
shadow scoring, the cluster). What they share lives here: the seat runtime every live table
runs (:mod:`agent.play.seat`), the one hand driver our dealers deal with
(:mod:`agent.play.hand_driver`), the database writer thread and model stores
(:mod:`agent.play.stores`) and the player kinds (:mod:`agent.play.kinds`). The IRC and ACPC
packages do not import each other, offline running imports neither, and the shared modules
import none of the three (pyproject's import contracts)."""
