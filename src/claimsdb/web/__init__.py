"""The browser view of the store: `claims serve` and the static HTML export.

- drawing.py  how a claim is drawn (one style per trust level, the marks), the templates, the CSS;
              shared by the server and `claims export --format html`; imports Jinja2 only;
- pages.py    what each page shows, read from the store through the domain functions;
- guard.py    who may talk to the server: loopback clients and hosts, same-origin writes (CSRF);
- app.py      the ASGI application (Starlette): routes, forms, and the one place errors become pages.
"""
