"""One node of a user's model -> its node case (and probe): the node as the model writes it, its constants as the
model holds them, data sets for the rest (the plan's edges, seeded random data, the witnesses of every fault model
that can differ in this configuration), expected outputs from the family's reference (generator/from_model/plan.py).

The one-node model: the node's op, domain and attributes copied as written, its inputs and outputs renamed to the
operator's input names (a case's files name them); each input the model holds as an initializer or a Constant is an
initializer holding the model's tensor (bits and encoding); a graph input with a default value stays a graph input,
fed the model's value; everything else is fed the plan's data. The opset is the model's import of the node's domain
(and its ai.onnx import); the IR version the lowest that opset needs.

The witness search: the live faults of the group (Fault.applies, not provably equivalent) that the edge and random
data sets leave untold are run on candidates drawn by the plan, in order, up to SEARCH_DRAWS; a candidate that
tells one of them apart is kept as a data set. What no candidate tells apart is named in case.json "untold".
"""

from __future__ import annotations

import re

import numpy as np
import onnx
from onnx import helper

from generator import dtypes, faults, kill_matrix, witness
from generator.case import Case, case_meta, finish_model, value_info
from generator.family import probe_meta
from generator.from_model.model_source import Site, Source
from generator.from_model.plan import Context, Plan
from generator.sampling import Stream, case_seed
from generator.serialize import graph_io_types

SEARCH_DRAWS = 64  # candidates tried per node for the faults the edges and the random data leave untold
RANDOM_SETS = 2  # seeded random data sets per node


def case_name(site: Site, label: str = "") -> str:
    """test_model_<index>_<op>_<node name>: stable while the model's node order is, unique in the suite (a chain:
    its label for the op)."""
    op = label or re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", site.op).lower()
    slug = re.sub(r"[^a-z0-9]+", "_", site.name.lower()).strip("_")[:48].strip("_")
    return f"test_model_{site.index:04d}_{op}" + (f"_{slug}" if slug else "")


def slot_names(site: Site) -> tuple[list[str], list[str]]:
    """The case's tensor names for the node's inputs and outputs: the schema's names where onnx knows the op."""
    try:
        schema = onnx.defs.get_schema(site.op, site.opset or 1, site.domain)
        ins = [p.name for p in schema.inputs]
        outs = [p.name for p in schema.outputs]
    except Exception:  # a contrib operator onnx does not know (com.microsoft.MatMulNBits)
        ins, outs = [], []

    def names(own: list[str], n: int, prefix: str) -> list[str]:
        got = [own[j] if j < len(own) else f"{prefix}{j}" for j in range(n)]
        return [g if got.count(g) == 1 else f"{g}_{j}" for j, g in enumerate(got)]  # variadic: unique names
    return names(ins, len(site.inputs), "input_"), names(outs, len(site.outputs), "output_")


def build(site: Site, plan: Plan, source: Source, ctx: Context, seed: int) -> list[Case]:
    """The node case of the site's defined data sets, and its probe if some are undefined (a chain: graph)."""
    in_names, out_names = slot_names(site)
    if plan.chain:  # a graph: the model's own tensor names
        in_names = [op.name for op in site.inputs]
    # a chain is named for its last node: one Q feeds several DQs, one DQ several MatMuls (each a chain of its own)
    name = case_name(plan.chain[-1] if plan.chain else site, plan.label)
    fed: list[int] = []  # node input positions that are graph inputs of the case, in order
    fixed: dict[int, np.ndarray] = {}  # position -> the model's value, for a fed input with a default
    inits = []
    for j, op in enumerate(site.inputs):
        if op.origin == "absent":
            continue
        if j in plan.generated:
            fed.append(j)
        elif op.constant and op.default:
            fed.append(j)
            fixed[j] = op.value()
        elif op.constant:
            t = op.proto()
            t.name = in_names[j]
            inits.append(t)
        else:
            raise ValueError(f"input {j} ({op.name!r}) is neither held by the model nor generated")
    for later in plan.chain:  # a chain's other constants, once each (a Q -> DQ pair shares its scale)
        for op in later.inputs:
            if op.constant and op.name not in {t.name for t in inits} | {in_names[j] for j in fed}:
                t = op.proto()
                inits.append(t)
    stream = Stream(case_seed(seed, name))

    def full(data: list) -> list:
        """A data set's graph inputs, in the case model's order."""
        got = dict(zip(plan.generated, data))
        return [fixed[j] if j in fixed else got[j] for j in fed]

    consts_cache: dict = {}

    def outcome(data: list):
        key = "consts"
        if key not in consts_cache:
            consts_cache[key] = {j: site.inputs[j].value() for j in range(len(site.inputs))
                                 if j not in plan.generated and site.inputs[j].constant}
        got = dict(zip(plan.generated, data))
        args = [None if op.origin == "absent" else got.get(j, consts_cache[key].get(j))
                for j, op in enumerate(site.inputs)]
        return plan.outcome(args)

    labelled = [("edge", d) for d in plan.edges]
    if plan.random is not None:
        labelled += [("random", plan.random(stream)) for _ in range(RANDOM_SETS)]
    results = [(label, d, *outcome(d)) for label, d in labelled]
    first = results[0][2]
    last = plan.chain[-1] if plan.chain else site
    out_types = [last.outputs[k].type or dtypes.from_numpy(np.asarray(y).dtype) for k, y in enumerate(first.outputs)]
    if plan.chain:
        model = _chain_model(site, plan, in_names, fed, inits, out_types, [np.shape(y) for y in first.outputs])
    else:
        model = _model(site, plan, in_names, out_names, fed, inits, out_types, [np.shape(y) for y in first.outputs])
    meta = _meta(site, plan, source, in_names)
    found, untold = _search(name, plan, model, meta, results, stream, full, outcome, out_types)
    results += found
    defined = [r for r in results if r[2].defined]
    undefined = [r for r in results if not r[2].defined]
    readings = sorted({x for r in defined for x in r[3]})
    cases = []
    if defined:
        m = dict(meta, inputs_from=[r[0] for r in defined], untold=untold)
        if readings:
            m["reading"] = "; ".join(readings)
        cases.append(Case(name, plan.kind, model, [full(r[1]) for r in defined],
                          [list(r[2].outputs) for r in defined], m))
    if undefined:
        reasons = sorted({x for r in undefined for x in r[2].reasons})
        pm = probe_meta(dict(meta, inputs_from=[r[0] for r in undefined]), reasons, ("probe", "model"))
        cases.append(Case(name + "_probe", "probe", model, [full(r[1]) for r in undefined], None, pm))
    return cases


def _model(site: Site, plan: Plan, in_names, out_names, fed, inits, out_types, out_shapes) -> onnx.ModelProto:
    node = onnx.NodeProto()
    node.CopyFrom(site.node)
    node.ClearField("input")
    node.ClearField("output")
    node.input.extend(in_names[j] if op.origin != "absent" else "" for j, op in enumerate(site.inputs))
    node.output.extend(out_names[k] if op.name else "" for k, op in enumerate(site.outputs))
    while node.input and not node.input[-1]:
        node.input.pop()
    graph_ins = [value_info(in_names[j], _type(site, j), _shape(site, j)) for j in fed]
    outs = [value_info(out_names[k], t, s) for k, (t, s) in enumerate(zip(out_types, out_shapes))
            if site.outputs[k].name]
    graph = helper.make_graph([node], f"{site.op.lower()}_from_model", graph_ins, outs, initializer=inits)
    opset = site.opset if site.domain == "" else site.ai_onnx
    return finish_model(graph, opset, {site.domain: site.opset or 1} if site.domain else None)


def _chain_model(site: Site, plan: Plan, in_names, fed, inits, out_types, out_shapes) -> onnx.ModelProto:
    """The chain's nodes as written, their tensors named as in the model; the last node's outputs the graph's."""
    nodes = []
    for s in [site, *plan.chain]:
        node = onnx.NodeProto()
        node.CopyFrom(s.node)
        nodes.append(node)
    last = plan.chain[-1]
    graph_ins = [value_info(in_names[j], _type(site, j), _shape(site, j)) for j in fed]
    outs = [value_info(op.name, t, sh) for op, t, sh in zip(last.outputs, out_types, out_shapes) if op.name]
    graph = helper.make_graph(nodes, f"{plan.label}_from_model", graph_ins, outs, initializer=inits)
    return finish_model(graph, site.opset)


def _type(site: Site, j: int):
    t = site.inputs[j].type
    if t is None:
        raise ValueError(f"input {j} ({site.inputs[j].name!r}): the model leaves its element type unknown")
    return t


def _shape(site: Site, j: int):
    s = site.inputs[j].shape
    if s is None:
        raise ValueError(f"input {j} ({site.inputs[j].name!r}): the model leaves its shape unknown")
    return s


def _meta(site: Site, plan: Plan, source: Source, in_names) -> dict:
    from generator import families
    fam = families.load(plan.family).FAMILY
    opset = site.opset if site.domain == "" else site.ai_onnx
    source_info = {"model": source.path.name, "sha256": source.sha256, "node": site.name, "index": site.index,
                   "inputs": {in_names[j]: {"tensor": op.name, "origin": op.origin}
                              for j, op in enumerate(site.inputs) if op.origin != "absent"},
                   "outputs": [op.name for op in site.outputs]}
    dims = {d: source.dims[d] for op in site.inputs for d in (op.dims or ()) if isinstance(d, str) and d in source.dims}
    if dims:
        source_info["dims"] = dims
    if plan.chain:
        source_info["node"] = " -> ".join(s.name for s in [site, *plan.chain])
        source_info["nodes"] = [{"index": s.index, "node": s.name, "op": s.op} for s in [site, *plan.chain]]
        source_info["outputs"] = [op.name for op in plan.chain[-1].outputs]
        for s in plan.chain:
            source_info["inputs"].update({op.name: {"tensor": op.name, "origin": op.origin} for op in s.inputs
                                          if op.constant})
    meta = case_meta(op=plan.op or site.op, domain=site.domain, opset=opset, family=plan.family,
                     spec_file=plan.spec_file or fam.spec_file, clause=plan.clause, compare=plan.compare,
                     flags=["model", *plan.flags], seed=0, params=plan.params, source=source_info)
    if plan.range_note:
        meta["source"]["random_range"] = plan.range_note
    if plan.group_opset is not None:
        meta["group_opset"] = plan.group_opset
    return meta


def _search(name, plan, model, meta, results, stream, full, outcome, out_types):
    """Candidates kept for the faults the data sets so far leave untold; and the names of those still untold."""
    family = plan.family
    mod = faults.module(family)
    catalogue = faults.catalogue(family)
    if not catalogue:
        return [], []
    params = faults.group_params(meta)
    # what the witness catalogue proves equivalent in this group (exhaustion) is no fault to search for
    proven = witness.load(family).get("groups", {}).get(mod.group_key(dict(meta, name=name, kind=plan.kind)), {})
    proven = {f for f, e in proven.get("faults", {}).items() if "equivalent" in e}
    live = [f for f in catalogue if _applies(f, params) and f.name not in proven]
    probe = Case(name, plan.kind, model, [], [], dict(meta, name=name, kind=plan.kind))
    kmeta = dict(probe.meta)

    def kills(fault, data, out) -> bool:
        return kill_matrix.data_set_kills(mod, fault, probe, kmeta, full(data), list(out.outputs), out_types)

    untold = [f for f in live if not any(r[2].defined and kills(f, r[1], r[2]) for r in results)]
    found = []
    for i in range(SEARCH_DRAWS if plan.draw is not None else 0):
        if not untold:
            break
        data = plan.draw(stream)
        out, readings = outcome(data)
        if not out.defined:
            continue
        hit = [f for f in untold if kills(f, data, out)]
        if hit:
            found.append((f"witness:{','.join(f.name for f in hit)}", data, out, readings))
            untold = [f for f in untold if f not in hit]
    return found, sorted(f.name for f in untold)


def _applies(fault, params: dict) -> bool:
    try:
        return bool(fault.applies(params)) and fault.equivalent(params) is None
    except Exception:  # a predicate that cannot read these params: try the fault
        return True
