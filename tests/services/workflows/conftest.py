from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture, shared with the kernel's tests)
