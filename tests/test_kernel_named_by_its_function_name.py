"""``--kernel NAME`` finds a C++ kernel by its bare function name (no return type, namespace, template
arguments or parameters), and where several instantiations share it, says so and lists them, instead
of "no kernel" (an outside tester's finding with two instantiations of ``reduce_sum``)."""

from __future__ import annotations

import pytest

from symgpu import errors
from symgpu.kernel.resources import KernelResources, select


def _kernel(mangled: str, demangled: str, registers: int) -> KernelResources:
    return KernelResources(mangled, demangled, "sm_90", registers, 0, 0)


FLOAT = _kernel("_Z10reduce_sumIfEvPT_i", "void reduce_sum<float>(float*, int)", 8)
DOUBLE = _kernel("_Z10reduce_sumIdEvPT_i", "void reduce_sum<double>(double*, int)", 10)
SCALE = _kernel("_ZN2ns5scaleEPfi", "ns::scale(float*, int)", 12)


def test_a_bare_function_name_selects_the_one_kernel_of_that_name() -> None:
    assert select([FLOAT, SCALE], "reduce_sum") is FLOAT
    assert select([FLOAT, DOUBLE, SCALE], "scale") is SCALE


def test_several_instantiations_of_one_name_are_named_as_ambiguous() -> None:
    with pytest.raises(errors.UsageError, match=r"2 kernels named 'reduce_sum'.*reduce_sum<float>.*reduce_sum<double>.*whole demangled"):
        select([FLOAT, DOUBLE, SCALE], "reduce_sum")
    assert select([FLOAT, DOUBLE], "void reduce_sum<double>(double*, int)") is DOUBLE


def test_a_name_no_kernel_has_is_still_no_kernel() -> None:
    with pytest.raises(errors.UsageError, match="no kernel 'reduce_max'"):
        select([FLOAT, DOUBLE], "reduce_max")


@pytest.mark.parametrize("demangled, name", [("void (anonymous namespace)::scale<float>(float*, int)", "scale"),
                                             ("void ns::Foo<int>::bar(int)", "bar"), ("(anonymous namespace)::k(float*)", "k"),
                                             ("void f<std::pair<int, int> >(int (*)(int))", "f")])
def test_the_bare_name_of_anonymous_namespaces_members_and_nested_templates(demangled: str, name: str) -> None:
    assert select([_kernel("_Zmangled", demangled, 8), FLOAT], name).demangled == demangled
