"""Every ``>>>`` example of the site is a doctest: a Markdown ```` ```python ```` block that
starts with ``>>>`` is marked as a test of its page's default group (as sphinx.ext.doctest's
own directive marks one), so ``sphinx-build -b doctest`` runs it. The blocks of one page
share a namespace, in page order, as the README's examples do in tests/interfaces/test_docs.py."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform


class MarkPythonExamples(SphinxTransform):
    default_priority = 400

    def apply(self) -> None:
        for node in self.document.findall(nodes.literal_block):
            if node.get("language") in ("python", "pycon") \
                    and node.astext().lstrip().startswith(">>>"):
                node["testnodetype"] = "doctest"
                node["groups"] = ["default"]
                node.setdefault("options", {})


def setup(app: Sphinx) -> dict:
    app.add_transform(MarkPythonExamples)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
