"""The built documentation opened in headless Chromium (Debian's package): math is typeset with no
TeX error, every image loads, no internal link is broken, and the catalog page is drawn (its
screenshot is kept under the test's temporary folder). Skips cleanly without chromium, or without
the docs extra (the ``docs_site`` fixture)."""

from __future__ import annotations

import pytest

import docs_site as site

pytestmark = pytest.mark.skipif(site.chromium() is None, reason="no chromium (Debian: apt-get install chromium)")

#: pages with math: the generated catalog, a notebook whose outputs hold LaTeX, the API, the tour
MATH_PAGES = ("catalog/interval_analysis.html", "catalog/volkov_2016.html", "notebooks/questions.html", "tour.html")


@pytest.fixture(scope="module")
def checked(docs_site):
    """``site.check_pages``'s result for a page of the site (a path under it): the pages the tests
    read (MATH_PAGES, the notebook among them) opened in one Chromium, once, at the first request;
    a page whose check script did not report fails the tests that read it."""
    results: dict[str, dict | str] = {}

    def check(page: str) -> dict:
        if not results:
            found = site.check_pages([docs_site / p for p in MATH_PAGES])
            results.update({p: found[docs_site / p] for p in MATH_PAGES})
        result = results[page]
        if isinstance(result, str):
            raise AssertionError(result)
        return result

    return check


@pytest.mark.parametrize("page", MATH_PAGES)
def test_math_is_typeset_without_errors_and_images_load(checked, page):
    if not site.DEBIAN_MATHJAX.exists():
        pytest.skip("no local MathJax (Debian: apt-get install libjs-mathjax): the pages would load it from the network")
    result = checked(page)
    assert result["errors"] == 0, f"{page}: {result['errors']} TeX errors"
    assert result["rendered"] >= result["math"], f"{page}: {result['rendered']} of {result['math']} math elements typeset"
    assert all(loaded for _, loaded in result["images"]), f"{page}: images not loaded: {[s for s, ok in result['images'] if not ok]}"


def test_notebook_plot_loads_in_the_browser(checked):
    result = checked("notebooks/questions.html")
    assert result["images"] and all(loaded for _, loaded in result["images"]), result["images"]


def test_no_internal_link_is_broken(docs_site):
    assert site.broken_links(docs_site) == []


def test_catalog_page_screenshot_is_drawn(docs_site, tmp_path_factory):
    png = tmp_path_factory.mktemp("screenshots") / "catalog_volkov_2016.png"
    done = site.screenshot(docs_site / "catalog" / "volkov_2016.html", png)
    assert png.is_file() and png.stat().st_size > 50_000, done.stderr[-2000:]
    print(f"catalog screenshot: {png}")
