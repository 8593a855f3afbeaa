"""The local hand-off: a CLI process reaches the engine held by the dashboard over a private socket."""
