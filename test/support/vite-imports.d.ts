/// <reference types="vite/client" />
// The importer tests read fixture files through Vite: `?raw` imports and `import.meta.glob`.
