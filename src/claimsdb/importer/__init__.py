"""An import: streamed (stream: the Importer), what it reads of the store (read), knows as it goes (known),
checks (checks), plans without writing (plan) and applies (write). The doors are in store.py."""
