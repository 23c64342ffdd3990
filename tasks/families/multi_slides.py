"""Multi-app families into Impress: a Calc chart picture -> a slide, Writer headings -> slide titles."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...verifiers import all_of, verify_pptx_shapes, verify_pptx_slide_titles, verify_pptx_text, verify_pptx_title
from ...verifiers.result import VerifierResult
from ..artifacts import FIXED_TIME, normalize_zip, xlsx_bytes
from ..base import Policy, TaskContext
from .multi_office import OfficeTransferTask, in_new_document
from .os_base import distinct_words
from .samples import distinct_ints

QUARTERS = ("Q1", "Q2", "Q3", "Q4")
TOPICS = (
    "Market Overview",
    "Customer Feedback",
    "Product Roadmap",
    "Hiring Plan",
    "Budget Review",
    "Risks and Mitigations",
    "Open Questions",
    "Next Steps",
    "Team Structure",
    "Launch Timeline",
)


def bar_chart_png(values: list[int], width: int = 480, height: int = 320) -> bytes:
    """A plain bar chart of ``values`` as PNG bytes (drawn with Pillow; same values, same bytes)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    top, bottom, gap = 20, height - 30, 20
    bar = (width - gap * (len(values) + 1)) // len(values)
    peak = max(values)
    for index, value in enumerate(values):
        left = gap + index * (bar + gap)
        draw.rectangle([left, bottom - (bottom - top) * value // peak, left + bar, bottom], fill=(114, 159, 207))
        draw.text((left + bar // 2 - 6, bottom + 8), QUARTERS[index], fill="black")
    draw.line([gap // 2, bottom, width - gap // 2, bottom], fill="black", width=2)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def outline_docx_bytes(title: str, sections: list[tuple[str, str]]) -> bytes:
    """A docx outline: a title paragraph, then per section a Heading 1 and one body paragraph."""
    import docx

    document = docx.Document()
    document.core_properties.created = FIXED_TIME
    document.core_properties.modified = FIXED_TIME
    document.add_paragraph(title)
    for heading, body in sections:
        document.add_heading(heading, level=1)
        document.add_paragraph(body)
    buffer = io.BytesIO()
    document.save(buffer)
    return normalize_zip(buffer.getvalue())


class ChartToSlide(OfficeTransferTask):
    """Calc data + its chart picture -> an Impress slide with the chart, a title and the best quarter."""

    id = "multi.chart_to_slide"
    instruction_template = (
        "The quarterly revenue in {xlsx} is open in LibreOffice Calc, and its bar chart is saved as the picture "
        "{png}. Create a new LibreOffice Impress presentation whose first slide has the title {title}, shows "
        "that chart picture, and has a text reading 'Best quarter: ' followed by the quarter (Q1 to Q4) with "
        "the highest revenue in the spreadsheet, e.g. 'Best quarter: Q2'. Save it as {pptx} (PowerPoint "
        "2007-365 format)."
    )
    apps = ("calc", "impress")
    oracles = ("api",)
    tags = ("multi", "calc", "impress")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        revenue = [v * 100 for v in distinct_ints(rng, 40, 400, len(QUARTERS))]
        return {
            "xlsx": f"~/Documents/{stem}_revenue.xlsx",
            "png": f"~/Pictures/{stem}_chart.png",
            "pptx": f"~/Documents/{stem}_review.pptx",
            "title": f"{stem.title()} revenue by quarter",
            "revenue": revenue,
        }

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        rows = [["Quarter", "Revenue"], *zip(QUARTERS, params["revenue"], strict=True)]
        return {
            params["xlsx"]: xlsx_bytes(rows, sheet_title="Revenue"),
            params["png"]: bar_chart_png(params["revenue"]),
        }

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "calc", params["xlsx"]

    @staticmethod
    def best_quarter(params: Mapping[str, Any]) -> str:
        revenue = params["revenue"]
        return QUARTERS[revenue.index(max(revenue))]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        data = ctx.read_file(ctx.params["pptx"])
        return all_of(
            {
                "title": verify_pptx_title(data, slide=1, title=ctx.params["title"]),
                "picture": verify_pptx_shapes(data, slide=1, kind="picture", min_count=1),
                "best quarter": verify_pptx_text(data, f"Best quarter: {self.best_quarter(ctx.params)}", slide=1),
            }
        )

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        text = f"Best quarter: {self.best_quarter(params)}"
        return in_new_document(
            "impress",
            [
                f"ImpressTools.set_title(slide=1, title={params['title']!r})",
                f"ImpressTools.insert_image(slide=1, path={params['png']!r}, x_cm=2.0, y_cm=6.0, width_cm=12.0)",
                f"ImpressTools.add_text_box(slide=1, text={text!r}, x_cm=15.0, y_cm=8.0, width_cm=9.0)",
                f"ImpressTools.save(path={params['pptx']!r}, file_format='pptx')",
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # The runner-up quarter becomes the best: the oracle names the wrong quarter.
        revenue = list(params["revenue"])
        runner_up = sorted(range(len(revenue)), key=revenue.__getitem__)[-2]
        revenue[runner_up] = max(revenue) + 100
        return {**params, "revenue": revenue}


class HeadingsToSlides(OfficeTransferTask):
    """Writer outline headings -> one Impress slide per heading, titled with it."""

    id = "multi.headings_to_slides"
    instruction_template = (
        "The outline {docx} is open in LibreOffice Writer. Create a new LibreOffice Impress presentation with "
        "exactly one slide per Heading 1 heading of the outline, in the same order, each slide titled with its "
        "heading's text. Save it as {pptx} (PowerPoint 2007-365 format)."
    )
    apps = ("writer", "impress")
    oracles = ("api",)
    tags = ("multi", "writer", "impress")

    def sample_params(self, rng: np.random.Generator) -> dict[str, Any]:
        stem = distinct_words(rng, 1)[0]
        count = int(rng.integers(3, 5))
        headings = [str(t) for t in rng.choice(TOPICS, size=count, replace=False)]
        return {
            "docx": f"~/Documents/{stem}_outline.docx",
            "pptx": f"~/Documents/{stem}_talk.pptx",
            "title": f"{stem.title()} planning meeting",
            "headings": headings,
        }

    def input_files(self, params: Mapping[str, Any]) -> dict[str, bytes]:
        sections = [(h, f"Notes on {h.lower()} go here.") for h in params["headings"]]
        return {params["docx"]: outline_docx_bytes(params["title"], sections)}

    def source(self, params: Mapping[str, Any]) -> tuple[str, str]:
        return "writer", params["docx"]

    def verify(self, ctx: TaskContext) -> VerifierResult:
        return verify_pptx_slide_titles(ctx.read_file(ctx.params["pptx"]), ctx.params["headings"])

    def api_oracle(self, params: Mapping[str, Any]) -> Policy:
        first, *rest = params["headings"]
        return in_new_document(
            "impress",
            [
                f"ImpressTools.set_title(slide=1, title={first!r})",
                *(f"ImpressTools.add_slide(layout='title_content', title={h!r})" for h in rest),
                f"ImpressTools.save(path={params['pptx']!r}, file_format='pptx')",
            ],
        )

    def perturb(self, params: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        headings = list(params["headings"])
        headings[int(rng.integers(len(headings)))] = next(t for t in TOPICS if t not in headings)
        return {**params, "headings": headings}
