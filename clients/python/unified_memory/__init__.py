"""unified_memory: the HTTP API of unified-memory, typed from its OpenAPI document. Standard library only.

    from unified_memory import Client
    client = Client("https://memory.example.com", token)
    memory = client.memory.get(wait=30)
"""

from ._batches import MAX_BATCH_BYTES, MAX_BATCH_ITEMS
from ._generated import API_VERSION
from ._pages import Pages
from .aio import AsyncClient, AsyncPages
from .client import Client
from .errors import UnifiedMemoryError
from .items import ItemProblem, UpsertItemResult, UpsertResult
from .memory import Memory

__version__ = "0.1.0"

__all__ = [
    "API_VERSION",
    "MAX_BATCH_BYTES",
    "MAX_BATCH_ITEMS",
    "AsyncClient",
    "AsyncPages",
    "Client",
    "ItemProblem",
    "Memory",
    "Pages",
    "UnifiedMemoryError",
    "UpsertItemResult",
    "UpsertResult",
    "__version__",
]
