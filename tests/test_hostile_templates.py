"""Issue 30 (code ran): a template from ``--templates`` renders in Jinja2's sandbox, so a payload never runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from symgpu import cli
from symgpu.report import templates

from conftest import FIXTURES

CANARY = "HOSTILE_CANARY"

PAYLOADS = {
    "cycler_globals_os_system": f"{{{{ cycler.__init__.__globals__.os.system('touch {CANARY}') }}}}",
    "joiner_globals_popen": f"{{{{ joiner.__init__.__globals__.os.popen('touch {CANARY}').read() }}}}",
    "lipsum_globals": f"{{{{ lipsum.__globals__['os'].system('touch {CANARY}') }}}}",
    "namespace_globals": f"{{{{ namespace.__init__.__globals__['os'].system('touch {CANARY}') }}}}",
    "subclasses_walk": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "self_context": f"{{{{ self._TemplateReference__context.cycler.__init__.__globals__.os.system('touch {CANARY}') }}}}",
    "format_string_globals": "{{ '{0.__class__.__init__.__globals__}'.format(cycler) }}",
    "attr_filter_globals": f"{{{{ (cycler|attr('__init__')|attr('__globals__'))['os'].system('touch {CANARY}') }}}}",
    "string_blowup": "{{ 'a' * 10**12 }}",
    "power_blowup": "{{ 7 ** 99999999999 }}",
    "huge_range": "{% for i in range(10**12) %}x{% endfor %}",
    "context_mutation": "{% set x = [] %}{{ x.append(1) }}",
}


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_user_template_payload_never_runs_and_is_refused_in_one_line(tmp_path, monkeypatch, capsys, payload):
    folder = tmp_path / "tpl"
    folder.mkdir()
    (folder / "report.md.j2").write_text("# report\n" + payload + "\n", encoding="utf-8")
    model = tmp_path / "tiny.toml"
    shutil.copy(FIXTURES / "tiny.toml", model)
    monkeypatch.chdir(tmp_path)
    code = cli.main(["report", str(model), "-f", "md", "--templates", str(folder), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert not (tmp_path / CANARY).exists() and not Path(CANARY).exists(), "a template payload ran"
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("symgpu: error: template ") and "report.md.j2" in err, err
    assert "Traceback" not in err and "internal error" not in err


def test_user_template_reading_the_context_still_renders(tmp_path, capsys):
    folder = tmp_path / "tpl"
    folder.mkdir()
    (folder / "report.md.j2").write_text("# {{ model.title | md_text }}\n{% for k in [1, 2] %}{{ k * 2 }}{% endfor %}\n", encoding="utf-8")
    model = tmp_path / "tiny.toml"
    shutil.copy(FIXTURES / "tiny.toml", model)
    code = cli.main(["report", str(model), "-f", "md", "--templates", str(folder), "-o", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "tiny.md").read_text(encoding="utf-8").splitlines()[1] == "24"


def test_bundled_templates_render_outside_the_sandbox_and_user_folders_inside():
    assert not isinstance(templates.make_environment("md"), templates.UserTemplateEnvironment)
    assert isinstance(templates.make_environment("tex", "."), templates.UserTemplateEnvironment)
