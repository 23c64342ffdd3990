"""Chrome families on web pages: tabs, a login, a form, downloads, and a download used in the terminal.

The pages are the desktop's own sites; the shop's data (users, files) is seeded per episode, so the
same seed gives the same site. Verified on the live browser, the site server's stored submissions
and the files in the home."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...apps.chrome.sites import CONTACT_TOPICS, default_site
from ...apps.chrome.verify import verify_file_bytes, verify_submission, verify_tab_urls
from ...verifiers import all_of, verify_text_file
from ...verifiers.result import VerifierResult
from ..base import Policy, ScriptedPolicy, TaskContext
from ..family_kit import api_calls, pick
from .chrome_base import ARTICLES, SHOP, ChromeTask, article_url, chrome_call, other
from .os_base import WORDS

FIRST_NAMES = ("Ada", "Alan", "Barbara", "Edsger", "Grace", "Ken", "Linus", "Margaret", "Niklaus", "Radia")
SKUS = ("LAP-1001", "MOU-4001", "KEY-3001", "MON-5002", "CAB-6001", "HDP-2001", "SPK-2003")


class OpenTabs(ChromeTask):
    """Open several pages, each in a tab of its own."""

    id = "chrome.open_tabs"
    goal = "In Chromium, open each of these pages in a tab of its own (keep them open): {listed}."
    oracles = ("api", "gui")
    tags = ("chrome", "tabs")
    max_steps = 20

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        urls = [article_url(slug) for slug, _ in pick(rng, ARTICLES, int(rng.integers(2, 4)))]
        return {"urls": urls, "listed": ", ".join(urls)}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_tab_urls(self.state(ctx, "list_tabs"), ctx.params["urls"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(*(chrome_call("open_tab", url=url) for url in params["urls"]))

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        actions = []
        for url in params["urls"]:
            # The offline new-tab page does not focus the address bar: ctrl+l does.
            actions += [
                "hotkey(keys=['ctrl', 't'])",
                "wait(seconds=0.5)",
                "hotkey(keys=['ctrl', 'l'])",
                f"type(text={url + chr(10)!r})",
            ]
            actions.append("wait(seconds=1)")
        return ScriptedPolicy([*actions, "exit(success=True)"])

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        urls = list(params["urls"])
        unused = [article_url(slug) for slug, _ in ARTICLES if article_url(slug) not in urls]
        urls[0] = pick(rng, unused)
        return {**params, "urls": urls}


class ShopLogin(ChromeTask):
    """Sign in to the shop with an account's name and password."""

    id = "chrome.shop_login"
    goal = 'Sign in to the shop at {url}login as the user "{user}" with the password "{password}".'
    oracles = ("api", "gui")
    tags = ("chrome", "forms", "login")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        names = [w for w in pick(rng, WORDS, 2)]
        users = {name: f"{pick(rng, WORDS)}-{int(rng.integers(100, 999))}" for name in names}
        return {"url": SHOP, "users": users, "user": names[0], "password": users[names[0]]}

    def site_data(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"users": dict(params["users"])}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return SHOP

    def verify(self, ctx: TaskContext) -> VerifierResult:
        url = self.state(ctx, "get_url")
        text = json.loads(ctx.client.call_api("ChromeTools", "get_page_text", json.dumps({"max_chars": 2000})))
        signed = f"Signed in as {ctx.params['user']}"
        if not url.startswith(f"{SHOP}account"):
            return VerifierResult.failed(f"the browser shows {url}, not the shop's account page")
        if signed not in text:
            return VerifierResult.failed(f"the account page does not say {signed!r}")
        return VerifierResult.passed(f"signed in to the shop as {ctx.params['user']}")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("navigate", url=f"{SHOP}login"),
            chrome_call("fill_form", fields={"username": params["user"], "password": params["password"]}, submit=True),
        )

    def gui_oracle(self, params: Mapping[str, Any]) -> Policy:
        return ScriptedPolicy(
            [
                "hotkey(keys=['ctrl', 'l'])",
                f"type(text={SHOP + 'login' + chr(10)!r})",
                "wait(seconds=1)",
                "press(key='tab')",  # from the address bar into the page: the user name field is the first
                f"type(text={params['user']!r})",
                "press(key='tab')",
                f"type(text={params['password'] + chr(10)!r})",
                "wait(seconds=1)",
                "exit(success=True)",
            ]
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "password": params["password"] + "x"}


class ContactForm(ChromeTask):
    """Fill in and send the shop's contact form."""

    id = "chrome.contact_form"
    goal = (
        "Send the contact form at {url}contact with the name {name}, the email {email}, the topic "
        '"{topic}" and the message "{message}".'
    )
    oracles = ("api",)
    tags = ("chrome", "forms")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        name = pick(rng, FIRST_NAMES)
        words = pick(rng, WORDS, 4)
        return {
            "url": SHOP,
            "name": name,
            "email": f"{name.lower()}@{pick(rng, WORDS)}.example",
            "topic": pick(rng, CONTACT_TOPICS),
            "message": f"Please check order {int(rng.integers(1001, 1011))}: {' '.join(words)}.",
        }

    def start_url(self, params: Mapping[str, Any]) -> str:
        return SHOP

    def fields(self, params: Mapping[str, Any]) -> dict[str, str]:
        return {k: str(params[k]) for k in ("name", "email", "topic", "message")}

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_submission(self.state(ctx, "site_submissions"), "/contact", self.fields(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("navigate", url=f"{SHOP}contact"),
            chrome_call("fill_form", fields=self.fields(params), submit=True),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "topic": other(rng, CONTACT_TOPICS, params["topic"])}


def _orders_csv(rows: list[list[Any]]) -> str:
    lines = ["order_id,date,customer,sku,quantity,unit_price"]
    lines += [",".join(str(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def _sample_orders(rng: np.random.Generator) -> list[list[Any]]:
    rows = []
    for i in range(int(rng.integers(5, 10))):
        day = 1 + i
        rows.append(
            [1001 + i, f"2024-03-{day:02d}", pick(rng, FIRST_NAMES), pick(rng, SKUS), int(rng.integers(1, 6)), "9.99"]
        )
    return rows


class DownloadFile(ChromeTask):
    """Download one of the shop's files into ~/Downloads."""

    id = "chrome.download_file"
    goal = 'Download the file "{file}" from the shop\'s downloads page ({url}downloads) into ~/Downloads.'
    oracles = ("api",)
    tags = ("chrome", "downloads")
    FILES = ("orders.csv", "notes.txt", "report.json")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"url": SHOP, "file": pick(rng, self.FILES), "orders": _sample_orders(rng)}

    def site_data(self, params: Mapping[str, Any]) -> dict[str, Any]:
        files = dict(default_site()["files"])
        files["orders.csv"] = _orders_csv(params["orders"])
        return {"files": files}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return f"{SHOP}downloads"

    def verify(self, ctx: TaskContext) -> VerifierResult:
        name = ctx.params["file"]
        expected = self.site_data(ctx.params)["files"][name].encode()
        return verify_file_bytes(ctx.read_file(f"~/Downloads/{name}"), expected, f"~/Downloads/{name}")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("download", url=f"{SHOP}files/{params['file']}"))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "file": other(rng, self.FILES, params["file"])}


class DownloadTotal(ChromeTask):
    """Multi-app: download the shop's order list and write the total quantity ordered into a file."""

    id = "chrome.download_order_total"
    goal = (
        "Download orders.csv from the shop ({url}downloads) into ~/Downloads, then write the total of its quantity "
        "column, as a plain number, as the only line of ~/total.txt (a terminal is open)."
    )
    apps = ("chrome", "terminal")
    oracles = ("api",)
    tags = ("chrome", "downloads", "multi_app", "terminal")
    max_steps = 15

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"url": SHOP, "orders": _sample_orders(rng)}

    def site_data(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"files": {**default_site()["files"], "orders.csv": _orders_csv(params["orders"])}}

    def setup(self, ctx: TaskContext) -> None:
        super().setup(ctx)
        ctx.client.launch_app("terminal")
        ctx.client.call_api("ChromeTools", "switch_tab", json.dumps({"index": 0}), timeout=40.0)

    def start_url(self, params: Mapping[str, Any]) -> str:
        return f"{SHOP}downloads"

    @staticmethod
    def total(params: Mapping[str, Any]) -> int:
        return sum(int(row[4]) for row in params["orders"])

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = _orders_csv(ctx.params["orders"]).encode()
        return all_of(
            {
                "downloaded": verify_file_bytes(
                    ctx.read_file("~/Downloads/orders.csv"), expected, "~/Downloads/orders.csv"
                ),
                "total": verify_text_file(ctx.read_file("~/total.txt"), str(self.total(ctx.params))),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("download", url=f"{SHOP}files/orders.csv"),
            f"OSTools.write_text_file(path='~/total.txt', text={str(self.total(params)) + chr(10)!r})",
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["orders"]]
        rows[0][4] = int(rows[0][4]) + 1
        return {**params, "orders": rows}


class CountSearchResults(ChromeTask):
    """Multi-app: search the shop and write how many products match into a file."""

    id = "chrome.count_search_results"
    goal = (
        'Search the shop ({url}) for "{query}" and write the number of products found, as a plain number, '
        "as the only line of ~/count.txt."
    )
    oracles = ("api",)
    tags = ("chrome", "search", "multi_app")
    QUERIES = ("laptop", "keyboard", "monitor", "wireless", "cable", "headphones", "ergo")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"url": SHOP, "query": pick(rng, self.QUERIES)}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return SHOP

    @staticmethod
    def count(query: str) -> int:
        wanted = query.casefold()
        return sum(
            1
            for p in default_site()["products"]
            if wanted in p["name"].casefold() or wanted in p["category"].casefold()
        )

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_text_file(ctx.read_file("~/count.txt"), str(self.count(ctx.params["query"])))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("navigate", url=f"{SHOP}search?q={params['query']}"),
            f"OSTools.write_text_file(path='~/count.txt', text={str(self.count(params['query'])) + chr(10)!r})",
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        counts = {q: self.count(q) for q in self.QUERIES}
        query = pick(rng, [q for q in self.QUERIES if counts[q] != counts[params["query"]]])
        return {**params, "query": query}


class CloseShopTabs(ChromeTask):
    """Close every tab of one site, keeping the others."""

    id = "chrome.close_shop_tabs"
    goal = "In Chromium, close every tab that shows a page of the shop (shop.gym.test); keep all the other tabs open."
    oracles = ("api",)
    tags = ("chrome", "tabs")
    SHOP_PAGES = (SHOP, f"{SHOP}downloads", f"{SHOP}contact", f"{SHOP}login", f"{SHOP}search?q=laptop")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        shop = [str(u) for u in pick(rng, self.SHOP_PAGES, int(rng.integers(1, 4)))]
        news = [article_url(slug) for slug, _ in pick(rng, ARTICLES, int(rng.integers(1, 3)))]
        order = rng.permutation(len(shop) + len(news))
        tabs = [(shop + news)[int(i)] for i in order]
        return {"tabs": tabs, "keep": news}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return params["tabs"][0]

    def prepare(self, ctx: TaskContext) -> None:
        for url in ctx.params["tabs"][1:]:
            ctx.client.call_api("ChromeTools", "open_tab", json.dumps({"url": url}), timeout=40.0)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        tabs = self.state(ctx, "list_tabs")
        left = [t["url"] for t in tabs if t["url"].startswith(SHOP)]
        if left:
            return VerifierResult.failed(f"{len(left)} shop tabs are still open", open=left)
        return verify_tab_urls(tabs, ctx.params["keep"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        # Tabs in order: the start page first, then the ones opened; close from the right so indexes hold.
        closes = [
            chrome_call("close_tab", index=i)
            for i in reversed(range(len(params["tabs"])))
            if params["tabs"][i].startswith(SHOP)
        ]
        if len(closes) == len(params["tabs"]):  # never happens (a news tab is always kept); no last-tab close
            closes = closes[:-1]
        return api_calls(*closes)

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # The oracle closes one news tab too.
        tabs = list(params["tabs"])
        keep = list(params["keep"])
        victim = keep.pop(int(rng.integers(len(keep))))
        tabs[tabs.index(victim)] = SHOP
        return {**params, "tabs": tabs}
