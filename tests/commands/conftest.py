"""The service fixtures (a real database on each backend, a clock, a service): see
tests/service/conftest.py."""

from tests.service.conftest import backend, clock, service, storage

__all__ = ["backend", "clock", "service", "storage"]
