"""Kernel resource usage from compiler output: ``ptxas -v`` / ``nvcc --resource-usage`` and ``cuobjdump --dump-resource-usage``.

Both tools print, per kernel (entry function), the registers per thread, the static shared
memory per block and the local memory (stack frame, spills) per thread. NVIDIA documents the
formats in the CUDA Compiler Driver NVCC guide (``--resource-usage``, ptxas ``--verbose``) and
the CUDA Binary Utilities guide (``cuobjdump --dump-resource-usage``)::

    ptxas info    : Compiling entry function '_Z12matmul_tiledPKfS0_Pfi' for 'sm_90'
    ptxas info    : Function properties for _Z12matmul_tiledPKfS0_Pfi
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem

    arch = sm_80
     Function _Z12matmul_tiledPKfS0_Pfi:
      REG:31 STACK:0 SHARED:2048 LOCAL:0 CONSTANT[0]:380 TEXTURE:0 SURFACE:0 SAMPLER:0

The text is untrusted: it is read with fixed regular expressions, never evaluated; a line that
starts like a resource line but does not parse is an error naming the file and line. Mangled
C++ names are demangled with ``c++filt`` when it is installed (shown mangled otherwise).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from symgpu import errors, textfiles
from symgpu.kernel import targets

#: Largest compiler output read (bytes).
MAX_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class KernelResources:
    """One kernel's resource usage as the compiler reports it.

    Attributes:
        name: the symbol name as printed (mangled for C++ kernels).
        demangled: the demangled C++ name ("" when the name is not mangled or c++filt is absent).
        arch: the target (``sm_90``), "" when the output does not say.
        registers: registers per thread (reg/thread).
        shared_bytes: static shared memory per block (B/block); dynamic shared memory is a launch parameter.
        local_bytes: local memory per thread: the stack frame (ptxas) or LOCAL + STACK (cuobjdump), B/thread.
        spill_stores: bytes of register spill stores per thread (ptxas only; 0 otherwise).
        spill_loads: bytes of register spill loads per thread (ptxas only).
        barriers: named barriers per block (ptxas ``used N barriers``; -1 when not reported).
        constant_bytes: constant bank 0 bytes (kernel parameters), 0 when not reported.
        origin: ``file:line`` where the kernel's resource line was read.
    """

    name: str
    demangled: str
    arch: str
    registers: int
    shared_bytes: int
    local_bytes: int
    spill_stores: int = 0
    spill_loads: int = 0
    barriers: int = -1
    constant_bytes: int = 0
    origin: str = ""

    @property
    def display_name(self) -> str:
        """The demangled name when there is one, else the name as printed."""
        return self.demangled or self.name

    @property
    def spills(self) -> bool:
        """True when the compiler spilled registers to local memory."""
        return self.spill_stores > 0 or self.spill_loads > 0


_PTXAS = re.compile(r"^\s*ptxas\s+info\s*:\s*(?P<rest>.*)$")
_ENTRY = re.compile(r"^Compiling entry function '(?P<name>[^']+)' for '(?P<arch>[^']+)'$")
_PROPS = re.compile(r"^Function properties for (?P<name>\S+)$")
_FRAME = re.compile(r"^\s*(?P<stack>\d+) bytes stack frame, (?P<stores>\d+) bytes spill stores, (?P<loads>\d+) bytes spill loads\s*$")
_USED = re.compile(r"^Used (?P<regs>\d+) registers(?P<rest>(?:, .*)?)$")
_USED_ITEM = re.compile(r"^(?:used (?P<barriers>\d+) barriers|(?P<a>\d+)(?:\+(?P<b>\d+))? bytes (?P<kind>smem|lmem|cmem\[\d+\]|cumulative stack size))$")
_ARCH = re.compile(r"^\s*arch\s*=\s*(?P<arch>sm_\w+)\s*$")
_FUNCTION = re.compile(r"^\s*Function (?P<name>[^\s:]+):\s*$")
_RESOURCE = re.compile(r"^\s*REG:")
_FIELD = re.compile(r"^(?P<key>REG|STACK|SHARED|LOCAL|CONSTANT\[\d+\]|TEXTURE|SURFACE|SAMPLER):(?P<value>\d+)$")


def read(path: str | Path) -> tuple[KernelResources, ...]:
    """Read a file of ``ptxas -v`` / ``--resource-usage`` or ``cuobjdump --dump-resource-usage`` output.

    Raises:
        errors.UsageError: missing or oversized file, no kernel in it, or a malformed resource line.
    """
    raw = textfiles.read_bounded(path, limit=MAX_BYTES, what="compiler output", hint="pass the output of one compilation")
    return parse(raw.decode("utf-8", errors="replace"), source=str(path))


def parse(text: str, *, source: str = "<text>", demangle: bool = True) -> tuple[KernelResources, ...]:
    """Parse compiler resource output (either format, detected per line); see the module docstring.

    Raises:
        errors.UsageError: no kernel found, or a resource line that does not parse (file:line, the line, the expected form).
    """
    kernels: list[KernelResources] = []
    entry_name, entry_arch, frame = "", "", (0, 0, 0)
    arch = ""
    function = ""
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"{source}:{number}"
        ptxas = _PTXAS.match(line)
        if ptxas:
            rest = ptxas.group("rest").strip()
            if (m := _ENTRY.match(rest)) is not None:
                entry_name, entry_arch, frame = m.group("name"), m.group("arch"), (0, 0, 0)
            elif (m := _PROPS.match(rest)) is not None:
                if m.group("name") != entry_name:
                    entry_name, entry_arch, frame = m.group("name"), "", (0, 0, 0)
            elif rest.startswith("Used"):
                if not entry_name:
                    raise errors.UsageError(f"{where}: resource line before any 'Compiling entry function' line: {line.strip()!r}")
                kernels.append(_ptxas_used(rest, entry_name, entry_arch, frame, where, line))
                entry_name, frame = "", (0, 0, 0)
            continue
        if (m := _FRAME.match(line)) is not None:
            frame = (int(m.group("stack")), int(m.group("stores")), int(m.group("loads")))
            continue
        if (m := _ARCH.match(line)) is not None:
            arch = m.group("arch")
            continue
        if (m := _FUNCTION.match(line)) is not None:
            function = m.group("name")
            continue
        if _RESOURCE.match(line):
            if not function:
                raise errors.UsageError(f"{where}: resource line before any 'Function NAME:' line: {line.strip()!r}")
            kernels.append(_cuobjdump_fields(line, function, arch, where))
            function = ""
    if not kernels:
        raise errors.UsageError(
            f"{source}: no kernel resource usage found; expected 'ptxas info : Used N registers' lines "
            f"(nvcc --resource-usage or -Xptxas -v) or 'REG:N STACK:N SHARED:N LOCAL:N' lines (cuobjdump --dump-resource-usage)"
        )
    return tuple(demangled(kernels) if demangle else kernels)


def _ptxas_used(rest: str, name: str, arch: str, frame: tuple[int, int, int], where: str, line: str) -> KernelResources:
    match = _USED.match(rest)
    if match is None:
        raise errors.UsageError(f"{where}: cannot read {line.strip()!r}; expected 'Used N registers[, used N barriers][, N bytes smem]...'")
    shared = local = constant = 0
    barriers = -1
    for item in filter(None, (part.strip() for part in match.group("rest").split(","))):
        m = _USED_ITEM.match(item)
        if m is None:
            raise errors.UsageError(f"{where}: cannot read {item!r} in {line.strip()!r}; expected 'N bytes smem', 'N bytes lmem', 'N bytes cmem[K]' or 'used N barriers'")
        if m.group("barriers") is not None:
            barriers = int(m.group("barriers"))
            continue
        amount = int(m.group("a")) + int(m.group("b") or 0)
        kind = m.group("kind")
        if kind == "smem":
            shared = amount
        elif kind == "lmem":
            local = max(local, amount)
        elif kind == "cmem[0]":
            constant = amount
    local = max(local, frame[0])
    return KernelResources(name=name, demangled="", arch=arch, registers=int(match.group("regs")), shared_bytes=shared,
                           local_bytes=local, spill_stores=frame[1], spill_loads=frame[2], barriers=barriers,
                           constant_bytes=constant, origin=where)


def _cuobjdump_fields(line: str, name: str, arch: str, where: str) -> KernelResources:
    fields: dict[str, int] = {}
    for item in line.split():
        m = _FIELD.match(item)
        if m is None:
            raise errors.UsageError(f"{where}: cannot read {item!r} in {line.strip()!r}; expected KEY:N with KEY one of REG, STACK, SHARED, LOCAL, CONSTANT[K], TEXTURE, SURFACE, SAMPLER")
        fields[m.group("key")] = int(m.group("value"))
    missing = [k for k in ("REG", "SHARED") if k not in fields]
    if missing:
        raise errors.UsageError(f"{where}: {line.strip()!r} lacks {', '.join(missing)}")
    return KernelResources(name=name, demangled="", arch=arch, registers=fields["REG"], shared_bytes=fields["SHARED"],
                           local_bytes=fields.get("LOCAL", 0) + fields.get("STACK", 0),
                           constant_bytes=fields.get("CONSTANT[0]", 0), origin=where)


def demangled(kernels: Sequence[KernelResources]) -> list[KernelResources]:
    """Fill in demangled names with ``c++filt`` where it is installed; names stay mangled otherwise."""
    mangled = [k.name for k in kernels if k.name.startswith("_Z")]
    names = demangle(mangled)
    return [replace(k, demangled=names.get(k.name, "")) for k in kernels]


def demangle(names: Iterable[str]) -> dict[str, str]:
    """Mangled name -> demangled name, by ``c++filt`` (empty when c++filt is absent or fails)."""
    wanted = [n for n in dict.fromkeys(names) if re.fullmatch(r"_Z[\w$.]+", n)]
    tool = shutil.which("c++filt")
    if not wanted or tool is None:
        return {}
    try:
        done = subprocess.run([tool], input="\n".join(wanted) + "\n", capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return {}
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != len(wanted):
        return {}
    return {m: d for m, d in zip(wanted, lines) if d and d != m}


def select(kernels: Sequence[KernelResources], wanted: str | None, cc: str | None = None) -> KernelResources:
    """The kernel named ``wanted`` (mangled name, demangled name, or the demangled name up to '(');
    the only kernel when ``wanted`` is None. Where the output holds the kernel for several targets (a
    fat binary's ``sm_80`` and ``sm_90``), the entry whose machine code runs on compute capability ``cc``
    (:func:`symgpu.kernel.targets.choose`).

    Raises:
        errors.UsageError: no such kernel, several kernels and none named, or several targets and none for ``cc``.
    """
    names = textfiles.listing(list(dict.fromkeys(k.display_name for k in kernels)))
    if wanted is None:
        if len({k.name for k in kernels}) == 1:
            return _for_device(kernels, kernels[0].name, cc)
        raise errors.UsageError(f"{len({k.name for k in kernels})} kernels in the compiler output ({names}); name one with --kernel")
    for kernel in kernels:
        if wanted in (kernel.name, kernel.demangled, kernel.demangled.split("(")[0]):
            return _for_device(kernels, kernel.name, cc)
    named = list(dict.fromkeys(k.name for k in kernels if _base_name(k.demangled) == wanted))  # 'reduce_sum' of 'void ns::reduce_sum<float>(float*, int)'
    if len(named) == 1:
        return _for_device(kernels, named[0], cc)
    if named:
        shown = textfiles.listing(list(dict.fromkeys(k.display_name for k in kernels if k.name in named)))
        raise errors.UsageError(f"{len(named)} kernels named {textfiles.printable(wanted, 200)!r} in the compiler output "
                                f"({shown}); give the whole demangled or mangled name with --kernel")
    raise errors.UsageError(f"no kernel {textfiles.printable(wanted, 200)!r} in the compiler output (kernels: {names})")


def _for_device(kernels: Sequence[KernelResources], name: str, cc: str | None) -> KernelResources:
    """The entry of kernel ``name`` (one per target in a fat binary's output) that runs on ``cc``."""
    entries = [k for k in kernels if k.name == name]
    return entries[targets.choose([k.arch for k in entries], cc, entries[0].display_name)]


def _base_name(demangled: str) -> str:
    """A demangled kernel's bare function name: no return type, namespace, template arguments or parameters."""
    text = demangled.replace("(anonymous namespace)::", "")
    depth, cut = 0, len(text)  # the parameter list: the first '(' outside template arguments
    for i, ch in enumerate(text):
        depth += (ch == "<") - (ch == ">")
        if ch == "(" and depth == 0:
            cut = i
            break
    head = text[:cut]
    depth, plain = 0, []
    for ch in head:  # template arguments dropped, nested ones too
        depth += ch == "<"
        if depth == 0:
            plain.append(ch)
        depth -= ch == ">" and depth > 0
    words = "".join(plain).split()
    return words[-1].split("::")[-1] if words else ""
