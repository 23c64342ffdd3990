"""Chrome families that find information on the desktop's sites: a date, a price, a table, the cheapest
product, every product of a category (over several result pages). Most write what they found into a
file (checked exactly); one leaves the right page open (checked on the live browser). The shop's
products and the news site's table are seeded per episode, so the answers change with the seed."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...apps.chrome.sites import default_site
from ...verifiers import verify_text_file
from ...verifiers.result import VerifierResult
from ..base import Policy, TaskContext
from ..family_kit import api_calls, pick
from .chrome_base import ARTICLES, NEWS, SHOP, ChromeTask, article_url, chrome_call, other


def _write(path: str, text: str) -> str:
    return f"OSTools.write_text_file(path={path!r}, text={text!r})"


def _products(rng: np.random.Generator) -> list[dict[str, Any]]:
    """The shop's products with this episode's prices (distinct, two decimals)."""
    products = default_site()["products"]
    cents = rng.choice(np.arange(500, 200000), size=len(products), replace=False)
    return [{**p, "price": round(int(c) / 100, 2)} for p, c in zip(products, cents, strict=True)]


class ShopTask(ChromeTask):
    """A task on the shop with seeded prices."""

    def site_data(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"products": list(params["products"])}

    def start_url(self, params: Mapping[str, Any]) -> str:
        return SHOP


class CategoryShopTask(ShopTask):
    """A shop task about one of the ``CATEGORIES`` (drawn per episode; ``perturb`` takes another)."""

    CATEGORIES: ClassVar[tuple[str, ...]]

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        return {"url": SHOP, "products": _products(rng), "category": pick(rng, self.CATEGORIES)}

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "category": other(rng, self.CATEGORIES, params["category"])}


class ArticleDate(ChromeTask):
    """Find when a news article was published."""

    id = "chrome.article_date"
    goal = (
        'On the news site ({url}), find when the article "{title}" was published and write its date '
        "(YYYY-MM-DD) as the only line of ~/date.txt."
    )
    oracles = ("api",)
    tags = ("chrome", "reading", "multi_app")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        slug, title = pick(rng, ARTICLES)
        return {"url": NEWS, "slug": slug, "title": title}

    @staticmethod
    def date(slug: str) -> str:
        return next(a["date"] for a in default_site()["articles"] if a["slug"] == slug)

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_text_file(ctx.read_file("~/date.txt"), self.date(ctx.params["slug"]))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("navigate", url=article_url(params["slug"])),
            _write("~/date.txt", self.date(params["slug"]) + "\n"),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "slug": other(rng, [slug for slug, _ in ARTICLES], params["slug"])}


class ProductPrice(ShopTask):
    """Look up one product's price in the shop."""

    id = "chrome.product_price"
    goal = (
        'In the shop ({url}), find the price of the product "{name}" and write it (just the number, '
        "e.g. 12.50) as the only line of ~/price.txt."
    )
    oracles = ("api",)
    tags = ("chrome", "search", "multi_app")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        products = _products(rng)
        chosen = pick(rng, products)
        return {"url": SHOP, "products": products, "sku": chosen["sku"], "name": chosen["name"]}

    @staticmethod
    def price(params: Mapping[str, Any]) -> str:
        return f"{next(p['price'] for p in params['products'] if p['sku'] == params['sku']):.2f}"

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_text_file(ctx.read_file("~/price.txt"), self.price(ctx.params))

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(
            chrome_call("navigate", url=f"{SHOP}product/{params['sku']}"),
            _write("~/price.txt", self.price(params) + "\n"),
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "sku": other(rng, [p["sku"] for p in params["products"]], params["sku"])}


class OpenCheapestProduct(CategoryShopTask):
    """Open the page of the cheapest product of a category."""

    id = "chrome.open_cheapest_product"
    goal = (
        "In the shop ({url}), open the product page of the cheapest product in the category {category}, "
        "and leave it open."
    )
    oracles = ("api",)
    tags = ("chrome", "search", "reasoning")
    CATEGORIES = ("laptops", "audio", "keyboards", "monitors", "mice", "cables")

    @staticmethod
    def cheapest(params: Mapping[str, Any]) -> str:
        listed = [p for p in params["products"] if p["category"] == params["category"]]
        return min(listed, key=lambda p: p["price"])["sku"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        expected = f"{SHOP}product/{self.cheapest(ctx.params)}"
        url = self.state(ctx, "get_url")
        if url != expected:
            return VerifierResult.failed(f"the browser shows {url}, not the cheapest product's page {expected}")
        return VerifierResult.passed(f"the cheapest {ctx.params['category']} product's page is open")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        return api_calls(chrome_call("navigate", url=f"{SHOP}product/{self.cheapest(params)}"))


class CategorySkus(CategoryShopTask):
    """List every product of a category, over the search's result pages."""

    id = "chrome.category_skus"
    goal = (
        "Search the shop ({url}) for {category} and write the SKU of every product found (all result "
        "pages), one per line, into ~/skus.txt."
    )
    oracles = ("api",)
    tags = ("chrome", "search", "pagination", "multi_app")
    CATEGORIES = ("laptops", "audio", "keyboards", "monitors")

    @staticmethod
    def skus(params: Mapping[str, Any]) -> list[str]:
        return [p["sku"] for p in params["products"] if p["category"] == params["category"]]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file("~/skus.txt")
        if data is None:
            return VerifierResult.failed("~/skus.txt does not exist")
        found = [line.strip() for line in data.decode(errors="replace").splitlines() if line.strip()]
        expected = self.skus(ctx.params)
        if sorted(found) != sorted(expected):
            missing, extra = sorted(set(expected) - set(found)), sorted(set(found) - set(expected))
            return VerifierResult.failed(f"~/skus.txt misses {missing} and has extra {extra}", found=found[:50])
        return VerifierResult.passed(f"all {len(expected)} SKUs of {ctx.params['category']} are listed")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        text = "\n".join(self.skus(params)) + "\n"
        return api_calls(
            chrome_call("navigate", url=f"{SHOP}search?q={params['category']}"), _write("~/skus.txt", text)
        )


class TableToCsv(ChromeTask):
    """Multi-app: save a table from a web page as a CSV file."""

    id = "chrome.table_to_csv"
    goal = (
        "Save the table on {url} (with its header row) as the CSV file ~/population.csv, one row per "
        "line, columns separated by commas."
    )
    oracles = ("api",)
    tags = ("chrome", "tables", "multi_app")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        table = default_site()["tables"]["population"]
        rows = [[row[0], int(rng.integers(50000, 5000000)), int(rng.integers(500, 20000))] for row in table["rows"]]
        return {"url": f"{NEWS}tables/population", "columns": table["columns"], "rows": rows}

    def site_data(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "tables": {
                "population": {
                    "title": "Population by region",
                    "columns": list(params["columns"]),
                    "rows": params["rows"],
                }
            }
        }

    def start_url(self, params: Mapping[str, Any]) -> str:
        return params["url"]

    @staticmethod
    def expected(params: Mapping[str, Any]) -> list[list[str]]:
        return [list(params["columns"]), *[[str(v) for v in row] for row in params["rows"]]]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file("~/population.csv")
        if data is None:
            return VerifierResult.failed("~/population.csv does not exist")
        found = [
            [cell.strip() for cell in row] for row in csv.reader(io.StringIO(data.decode(errors="replace"))) if row
        ]
        expected = self.expected(ctx.params)
        if found != expected:
            first = next(
                (i for i, (a, b) in enumerate(zip(found, expected, strict=False)) if a != b),
                min(len(found), len(expected)),
            )
            return VerifierResult.failed(f"~/population.csv differs from the table at row {first + 1}", rows=len(found))
        return VerifierResult.passed("~/population.csv holds the page's table")

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(self.expected(params))
        return api_calls(chrome_call("get_table", selector="#data"), _write("~/population.csv", buffer.getvalue()))

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        rows = [list(row) for row in params["rows"]]
        rows[0][1] = int(rows[0][1]) + 1
        return {**params, "rows": rows}
