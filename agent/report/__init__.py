"""The opponent report: HUD statistics of every opponent in the database as FPDB defines
them (stats), the page with its charts and the CSV and JSON beside it (page, charts), the
nightly APScheduler job (schedule) and its benchmark (bench). It reads the database
through read-only connections of its own and ties nothing else together."""
