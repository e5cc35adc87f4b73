"""One module per `poki` sub-command: `add_arguments(parser)` and `run(args) -> int`."""
