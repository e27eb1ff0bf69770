"""`report --all` skips a report whose inputs and written files are unchanged since it was last
rendered, and renders it again when anything it depends on changed: its model file or a base,
its measured data, its templates, one of its files on disk, or the cache entry itself; with
`--force` or `--no-cache` it always renders."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

import symgpu
from symgpu import memo, resources, store
from symgpu.entry_kinds import REPORT
from symgpu.report import freshness, kernel_example, render

from conftest import FIXTURES, tiny_text



@pytest.fixture
def reports(tmp_path: Path, write_model, cli, monkeypatch: pytest.MonkeyPatch):
    """``report --all --models ... -f md`` over a folder of small models (found through
    $SYMGPU_MODEL_PATH): returns run(*extra) -> (exit code, stdout, folders rendered, as the
    summary lists them). The kernel example is rendered too (its inputs are the bundled files),
    and there is no comparison report (no volkov_2016 among the models). ``--jobs 1``: rendered in
    this process, whose memos keep the models built (forked workers would build them again at every
    run); what is rendered or skipped is decided and recorded here either way (the link test below
    renders through the workers)."""
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setenv(resources.ENV_MODEL_PATH, str(models))
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(store.NO_CACHE_ENV, "0")  # restored after the test even if --no-cache sets it
    ids = ["tiny"]
    (models / "tiny.toml").write_text(tiny_text(), encoding="utf-8")

    def run(*extra: str, before: tuple[str, ...] = ()) -> tuple[int, str, list[str]]:
        code, out, err = cli(*before, "report", "--all", "--models", ",".join(ids), "-o", str(tmp_path / "out"), "-f", "md",
                             "--jobs", "1", *extra)
        assert code == 0, err
        return code, out, rendered(out)

    run.models = models  # type: ignore[attr-defined]
    run.out = tmp_path / "out"  # type: ignore[attr-defined]
    run.ids = ids  # type: ignore[attr-defined]
    return run


def rendered(out: str) -> list[str]:
    """The folders a ``report --all`` run rendered, from its summary ("ok   tiny: 3 files in ..."),
    sorted; a folder it skipped says "up to date (skipped)"."""
    found = [re.fullmatch(r"ok   (\S+): \d+ files in .*", line) for line in out.splitlines()]
    return sorted(m.group(1) for m in found if m)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_second_run_with_nothing_changed_renders_nothing_and_says_so(reports):
    _, out, rendered = reports()
    assert rendered == ["kernel_example", "tiny"]
    before = snapshot(reports.out)
    _, out, rendered = reports()
    assert rendered == []
    assert out.splitlines()[0].endswith("0 rendered, 2 up to date (skipped; --force renders them again)")
    assert "ok   tiny: up to date (skipped)" in out.splitlines()
    assert snapshot(reports.out) == before


def test_a_changed_model_file_is_rendered_again_and_the_others_are_not(reports):
    reports()
    (reports.models / "tiny.toml").write_text(tiny_text(peak="50 TFLOP/s"), encoding="utf-8")
    _, _, rendered = reports()
    assert rendered == ["tiny"]
    assert b"50" in (reports.out / "tiny" / "tiny.md").read_bytes()


def test_a_variant_is_rendered_again_when_its_base_file_changes(reports):
    (reports.models / "tiny_variant.toml").write_text(
        'schema_version = 1\n[model]\nid = "tiny_variant"\ntitle = "A variant"\nsummary = "The tiny model, unchanged."\nextends = "tiny"\n',
        encoding="utf-8")
    reports.ids.append("tiny_variant")
    assert reports()[2] == ["kernel_example", "tiny", "tiny_variant"]
    (reports.models / "tiny.toml").write_text(tiny_text(peak="50 TFLOP/s"), encoding="utf-8")
    assert reports()[2] == ["tiny", "tiny_variant"]
    assert reports()[2] == []


@pytest.mark.parametrize("change", ["delete", "edit"])
def test_a_deleted_or_edited_output_file_is_rendered_again(reports, change):
    reports()
    before = snapshot(reports.out)
    report = reports.out / "tiny" / "tiny.md"
    if change == "delete":
        report.unlink()
    else:
        report.write_bytes(report.read_bytes() + b"edited by hand\n")
    assert reports()[2] == ["tiny"]
    assert snapshot(reports.out) == before


def test_an_output_file_replaced_by_a_link_is_never_written_through_or_replaced(reports, tmp_path, cli):
    # symgpu replaces only regular files: a link where a report file was is refused, the file it
    # points to left as it was (the up-to-date check does not trust it either)
    reports()
    report = reports.out / "tiny" / "tiny.md"
    copy = tmp_path / "elsewhere.md"
    shutil.copyfile(report, copy)
    before = copy.read_bytes()
    report.unlink()
    report.symlink_to(copy)
    code, _, err = cli("report", "--all", "--models", "tiny", "-o", str(reports.out), "-f", "md")
    assert code == 2 and "not a regular file" in err
    assert report.is_symlink() and copy.read_bytes() == before


def _entries() -> list[Path]:
    return sorted((store.folder() / REPORT.name).rglob("*.txt"))


def test_a_corrupt_cache_entry_is_not_trusted(reports):
    reports()
    for entry in _entries():
        entry.write_text(entry.read_text(encoding="utf-8").replace('"files"', '"filez"'), encoding="utf-8")
    assert reports()[2] == ["kernel_example", "tiny"]
    assert reports()[2] == []  # the rendering replaced the entries with intact ones


def test_a_truncated_cache_entry_is_not_trusted(reports):
    reports()
    for entry in _entries():
        entry.write_bytes(entry.read_bytes()[:40])
    assert reports()[2] == ["kernel_example", "tiny"]


@pytest.mark.parametrize("body", [
    "not json",
    '{"folder": "tiny", "files": {}}',
    '{"folder": "other", "files": {"tiny.md": "%s"}}',
    '{"folder": "tiny", "files": {"../tiny.md": "%s"}}',
    '{"folder": "tiny", "files": {".hidden": "%s"}}',
    '{"folder": "tiny", "files": {"tiny.md": "%s"}, "run": "rm -rf /"}',
    '{"folder": "tiny", "files": {"tiny.md": "not a digest"}}',
    '{"folder": "tiny", "files": ["tiny.md"]}',
])
def test_an_entry_with_a_valid_checksum_but_an_unexpected_shape_is_not_trusted(tmp_path, monkeypatch, body):
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    inputs = freshness.Inputs("tiny", hashlib.sha256(b"inputs").hexdigest())
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "tiny.md").write_bytes(b"report")
    digest = hashlib.sha256(b"report").hexdigest()
    store.put(REPORT, inputs.key, body.replace("%s", digest))
    assert store.get(REPORT, inputs.key) is not None  # the checksum is right: the shape is what is refused
    assert freshness.recorded(inputs) is None
    assert not freshness.up_to_date(folder, inputs)
    store.put(REPORT, inputs.key, '{"folder": "tiny", "files": {"tiny.md": "%s"}}' % digest)
    assert freshness.up_to_date(folder, inputs)  # the well-formed entry is accepted


def test_no_cache_and_force_always_render(reports):
    reports()
    assert reports("--force")[2] == ["kernel_example", "tiny"]
    assert reports(before=("--no-cache",))[2] == ["kernel_example", "tiny"]
    assert reports(before=("--no-cache",))[2] == ["kernel_example", "tiny"]


def test_changed_measured_data_renders_the_model_that_reads_it_again(reports, tmp_path, monkeypatch):
    data_root = tmp_path / "data_root"
    source = resources.measured_file("data/h100/stream_read_vs_warps_model.csv")
    (data_root / "data" / "h100").mkdir(parents=True)
    csv = data_root / "data" / "h100" / source.name
    shutil.copyfile(source, csv)
    for relative in kernel_example.sources()[1]:  # the worked example reads its files from the same root
        (data_root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(resources.measured_file(relative), data_root / relative)
    monkeypatch.setenv(resources.ENV_DATA_ROOT, str(data_root))
    shutil.copyfile(FIXTURES / "tiny_measured.toml", reports.models / "tiny_measured.toml")
    reports.ids.append("tiny_measured")
    assert reports()[2] == ["kernel_example", "tiny", "tiny_measured"]
    assert reports()[2] == []
    csv.write_text("# one more provenance line\n" + csv.read_text(encoding="utf-8"), encoding="utf-8")
    assert reports()[2] == ["tiny_measured"]
    assert "one more provenance line" in (reports.out / "tiny_measured" / "tiny_measured.md").read_text(encoding="utf-8")


def test_changed_templates_render_every_report_again(reports, tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    shutil.copyfile(resources.bundled("templates") / "report.md.j2", templates / "report.md.j2")
    assert reports("--templates", str(templates))[2] == ["kernel_example", "tiny"]
    assert reports("--templates", str(templates))[2] == []
    with (templates / "report.md.j2").open("a", encoding="utf-8") as out:
        out.write("\nA closing line of my own.\n")
    assert reports("--templates", str(templates))[2] == ["kernel_example", "tiny"]
    assert (reports.out / "tiny" / "tiny.md").read_text(encoding="utf-8").endswith("A closing line of my own.\n")


def test_the_inputs_digest_is_computed_without_building_the_model(tmp_path, monkeypatch):
    monkeypatch.setenv(resources.ENV_MODEL_PATH, str(tmp_path))
    (tmp_path / "tiny.toml").write_text(tiny_text(), encoding="utf-8")
    memo.clear_all()
    first = freshness.model_inputs("tiny", ("md",))
    assert first is not None and first == freshness.model_inputs("tiny", ("md",))
    assert freshness.model_inputs("tiny", ("md", "tex")) != first
    (tmp_path / "tiny.toml").write_text(tiny_text(peak="50 TFLOP/s"), encoding="utf-8")
    assert freshness.model_inputs("tiny", ("md",)) != first
    assert memo.tallies()["model.build.models"] == 0, "the model was built"
    symgpu.load(tmp_path / "tiny.toml")
    assert memo.tallies()["model.build.models"] == 1  # what the count would have shown


def test_a_model_whose_bases_form_a_cycle_has_no_digest_and_is_rendered(tmp_path, monkeypatch):
    monkeypatch.setenv(resources.ENV_MODEL_PATH, str(tmp_path))
    for name, base in (("cyc_a", "cyc_b"), ("cyc_b", "cyc_a")):
        (tmp_path / f"{name}.toml").write_text(f'[model]\nid = "{name}"\nextends = "{base}"\n', encoding="utf-8")
    assert freshness.model_inputs("cyc_a", ("md",)) is None
    assert not freshness.up_to_date(tmp_path, None)


def test_one_run_reads_each_input_file_once_and_gets_the_same_digests():
    """The digests of every report of an --all run (bundled models, the comparison, the kernel
    example) read each file once when they share the run's reads, and equal digests computed
    each on its own (every file read afresh)."""
    from symgpu.report import comparison

    ids = render.model_ids()

    def digests(files_for):
        found = {m: freshness.model_inputs(m, ("md", "tex", "json"), files=files_for()) for m in ids}
        found["comparison"] = freshness.folder_inputs("comparison", ("md",), comparison.model_ids(), files=files_for())
        found["kernel"] = freshness.folder_inputs(kernel_example.FOLDER, ("md",), *kernel_example.sources(), files=files_for())
        return found

    alone = digests(freshness.InputFiles)
    shared = freshness.InputFiles()
    together = digests(lambda: shared)
    assert together == alone and all(v is not None for v in together.values())
    reads = [path.resolve() for path in shared.paths_read]
    assert len(reads) == len(set(reads))
    assert resources.equations().resolve() / "volkov_2016.toml" in reads  # the comparison's, the example's and its own
