"""Proofs about SymPy expressions under their symbols' declared assumptions, with no model in sight.

The room below :mod:`symgpu.model` where every claim about an expression is proved or refuted
(pure SymPy; imports nothing from symgpu but ``errors``, ``memo`` and ``units``):

- :mod:`~symgpu.proofs.sample_points`: the one point sampler: exact points allowed by the
  symbols' assumptions (pools, seeded points, one generic point) and every seeded draw of symgpu
  (:class:`~symgpu.proofs.sample_points.Draws`, numeric columns);
- :mod:`~symgpu.proofs.intervals`: interval arithmetic over the symbols' declared ranges (a sign
  proved when the enclosure excludes 0);
- :mod:`~symgpu.proofs.exact_signs`: signs decided by SymPy's assumptions, and refuted by exact
  values at admissible points;
- :mod:`~symgpu.proofs.sign_parts`: the sign of a sum, product, ``Min`` or ``Max`` with
  ``Min``/``Max`` in it, bounded part by part;
- :mod:`~symgpu.proofs.unordered`: the proof that a ``Min``/``Max`` keeps every argument;
- :mod:`~symgpu.proofs.signs`: the sign reasoner (signs, relations decided and tidied) under the
  :class:`~symgpu.proofs.sign_records.Declared` assumptions and constants, and extra relations;
- :mod:`~symgpu.proofs.forms`: memoised factored and simplified forms, exact numbers, what an
  expression is built from (Min/Max/Piecewise pieces, floor/ceiling staircases);
- :mod:`~symgpu.proofs.relations`: whether two relations state the same thing.

:mod:`symgpu.model` (building Min/Max) and :mod:`symgpu.derive` (sign reasoning under a
model's declarations, refutations, feasibility and certificates) use them.
"""
