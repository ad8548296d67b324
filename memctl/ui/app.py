"""The page's Starlette app: routes, the guard in front of them, Jinja2 templates.

Handlers are thin: each calls views, search_view, trends or actions and renders. Library
work runs in Starlette's thread pool (it blocks on SQLite and the vault lock); a usage
error is the page's one-line message with status 400, never a traceback.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from memctl.errors import MemctlError
from memctl.ui import guard as doors
from memctl.ui.guard import Guard
from memctl.vault import Vault

HERE = Path(__file__).parent
Handler = Callable[[Request], Awaitable[Response]]


def _templates() -> Jinja2Templates:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every template, whatever its name: a note's HTML is text
    )
    return Jinja2Templates(env=env)


def build_app(vault: Vault, guard: Guard) -> Guarded:
    pages = Pages(vault, guard)
    routes = [
        Route("/", pages.page("dashboard.html", pages.dashboard)),
        Route("/review", pages.page("review.html", pages.review)),
        Route("/search", pages.page("search.html", pages.search)),
        Route("/trends", pages.page("trends.html", pages.trends)),
        Route("/file", pages.page("file.html", pages.show_file)),
        Route("/decide/{action}", pages.decide, methods=["POST"]),
        Route("/static/style.css", pages.style),
    ]
    return Guarded(Starlette(routes=routes), guard)


class Pages:
    """Each route's work: what it reads (in the thread pool) and the template it fills."""

    def __init__(self, vault: Vault, guard: Guard) -> None:
        self.vault, self.guard, self.templates = vault, guard, _templates()

    def render(self, request: Request, name: str, code: int = 200, **context: Any) -> Response:
        context.update(form_token=self.guard.form_token(), vault_root=str(self.vault.root))
        return self.templates.TemplateResponse(request, name, context, status_code=code)

    def page(self, name: str, work: Callable[[Request], dict[str, Any]]) -> Handler:
        async def handler(request: Request) -> Response:
            try:
                context = await run_in_threadpool(work, request)
            except MemctlError as exc:
                return self.render(request, "error.html", 400, message=str(exc))
            return self.render(request, name, **context)

        return handler

    def dashboard(self, request: Request) -> dict[str, Any]:
        from memctl.ui.views import dashboard

        return dashboard(self.vault)

    def review(self, request: Request) -> dict[str, Any]:
        from memctl.ui.views import review_queue

        return {"queue": review_queue(self.vault)}

    def search(self, request: Request) -> dict[str, Any]:
        from memctl.ui.search_view import search_page

        return {"page": search_page(self.vault, request.query_params)}

    def trends(self, request: Request) -> dict[str, Any]:
        from memctl.ui.trends import trends

        return trends(self.vault)

    def show_file(self, request: Request) -> dict[str, Any]:
        from memctl.ui.views import file_lines

        rel = request.query_params.get("path", "")
        line = request.query_params.get("line", "")
        return {
            "path": rel,
            "line": int(line) if line.isdigit() else 0,
            "lines": file_lines(self.vault, rel),
        }

    async def decide(self, request: Request) -> Response:
        from memctl.ui.actions import decide

        form = await request.form()
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        if not self.guard.form_token_valid(fields.get("form_token", "")):
            return PlainTextResponse("the form has expired: reload the page\n", status_code=403)
        try:
            outcome = await run_in_threadpool(
                decide, self.vault, request.path_params["action"], fields
            )
        except MemctlError as exc:
            return self.render(request, "error.html", 400, message=str(exc))
        return self.render(request, "done.html", outcome=outcome)

    async def style(self, request: Request) -> Response:
        return FileResponse(HERE / "static" / "style.css", media_type="text/css")


class Guarded:
    """ASGI: the guard's checks before the app, its headers on every answer."""

    def __init__(self, app: Starlette, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                headers += [(k.encode(), v.encode()) for k, v in doors.SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        refusal = self._refusal(Request(scope))
        if refusal is not None:
            await refusal(scope, receive, with_headers)
            return
        await self.app(scope, receive, with_headers)

    def _refusal(self, request: Request) -> Response | None:
        g = self.guard
        if not g.host_allowed(request.headers.get("host", "")):
            return PlainTextResponse("unknown Host\n", status_code=421)
        given = request.query_params.get("token")
        if given is not None and request.method == "GET" and g.token_matches(given):
            # Trade the address's token for a cookie at once, so it leaves the address bar.
            answer = RedirectResponse(request.url.path, status_code=303)
            answer.set_cookie(doors.COOKIE, given, httponly=True, samesite="strict")
            return answer
        if not g.authorised(request.headers, request.cookies):
            return PlainTextResponse(
                "a bearer token is required: open the address `memctl ui` printed "
                "(/?token=TOKEN; the token is $MEMCTL_MCP_TOKEN or .memctl/http.token)\n",
                status_code=401,
                headers={"www-authenticate": "Bearer"},
            )
        if request.method not in ("GET", "HEAD") and not g.same_origin(request.headers):
            return PlainTextResponse("cross-site request refused\n", status_code=403)
        return None
