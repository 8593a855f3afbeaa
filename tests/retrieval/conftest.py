from tests.engine.conftest import engine  # noqa: F401  (the engine fixture, shared)
