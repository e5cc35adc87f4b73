"""The ACPC dealer protocol, version 2.0.0 (project_acpc_server's protocol.md): the pure
message grammar and its translation to tracker events (:mod:`.protocol`), the socket
framing of a client (:mod:`.client`) and a dealer server of our own (:mod:`.server`).
Game definitions are read by connectors.acpc_game, match logs by connectors.acpc_log."""
