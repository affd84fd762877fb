"""The importance tests' stand-in embedder serves the nugget tests too."""
from tests.importance.conftest import embedder  # noqa: F401  (a fixture)
