"""The ACPC dealer protocol, version 2.0.0 (project_acpc_server's protocol.md): the pure
message grammar and its translation to tracker events (:mod:`.protocol`), the socket
framing of a client (:mod:`.client`). Our dealer's match loop is agent.play.acpc.dealer.
Game definitions are read by connectors.acpc.game, match logs by connectors.logs.acpc_log."""
