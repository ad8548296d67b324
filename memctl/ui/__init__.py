"""memctl ui: a local web page to look at memory and decide (Starlette, Jinja2, SVG)."""
