"""IRC tables: the dealer bot's table logic (:mod:`.table`, with its seats and bank,
:mod:`.seats`, and decks, :mod:`.deck`), the dealer host that runs it with its journal
(:mod:`.dealer`, :mod:`.journal`), the player bot (:mod:`.player`), the network options
both use (:mod:`.network`) and the demo that seats them on a real server (:mod:`.demo`)."""
