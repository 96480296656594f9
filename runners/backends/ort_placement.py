"""Which execution provider ran each node of an onnxruntime session (issue 20, item 1).

onnxruntime hands a node its first provider cannot run to the next one (in the end the CPU provider) with no
more than a log line, so a `pass` asked of a vendor's provider could be the CPU kernel's. onnxruntime 1.32 and
later tell where each node went when the session config entry RECORD is "1"
(`InferenceSession.get_provider_graph_assignment_info()`: a list of OrtEpAssignedSubgraph, each an `ep_name` and
`get_nodes()` of OrtEpAssignedNode with `name`, `op_type`, `domain`). Older releases do not: there the
placement holds only the providers the session runs with, and `checked` is false.
"""

from __future__ import annotations

import onnxruntime as ort

RECORD = "session.record_ep_graph_assignment_info"
CHECKABLE = hasattr(ort.InferenceSession, "get_provider_graph_assignment_info")


def placement(session: ort.InferenceSession, requested: str) -> dict:
    """{"requested": provider, "checked": bool, "nodes": [{"node", "op", "provider"}]} where this onnxruntime
    says (op is "domain::op_type" outside the default domain); else {"requested", "checked": false,
    "providers": the session's providers, "why" where onnxruntime refused to say}."""
    unchecked = {"requested": requested, "checked": False, "providers": list(session.get_providers())}
    if not CHECKABLE:
        return unchecked
    try:
        subgraphs = session.get_provider_graph_assignment_info()
    except Exception as exc:  # noqa: BLE001 - e.g. config.session.record_ep_graph_assignment_info=0 given
        return {**unchecked, "why": str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__}
    nodes = [{"node": n.name, "op": f"{n.domain}::{n.op_type}" if n.domain not in ("", "ai.onnx") else n.op_type,
              "provider": sub.ep_name} for sub in subgraphs for n in sub.get_nodes()]
    return {"requested": requested, "checked": True, "nodes": nodes}


def elsewhere(place: dict) -> str | None:
    """Why the nodes did not all run on the requested provider ("Relu ran on CPUExecutionProvider, not
    XExecutionProvider"), or None where they did (or where this onnxruntime cannot say)."""
    away = [n for n in place.get("nodes", ()) if n["provider"] != place["requested"]]
    if not away:
        return None
    ops = ", ".join(dict.fromkeys(n["op"] for n in away))
    ran = ", ".join(dict.fromkeys(n["provider"] for n in away))
    of = f" ({len(away)} of {len(place['nodes'])} nodes)" if len(place["nodes"]) > 1 else ""
    return f"{ops} ran on {ran}, not {place['requested']}{of}"
