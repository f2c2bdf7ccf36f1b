"""Prune a GraphDef to one step: the nodes that fetches and targets need, with feeds cut in.

TF's RewriteGraphForExecution with a call frame: every fed tensor becomes an `_Arg` node (its consumers
read the frame instead of the producer), every fetched tensor gets a `_Retval` node, and only the
transitive closure backwards from fetches and targets is kept. Feeds may be any tensor, not only
placeholders; a fed placeholder's control edges move to its `_Arg`, as TF's FeedInputs moves them (so a
control dependency on a fed placeholder does not run the placeholder). Pure function: GraphDef in, GraphDef out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from tensorweave import errors
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.ops.function_ops import Arg, Retval

_PLACEHOLDERS = frozenset({"Placeholder", "PlaceholderV2"})


def _frame_names(prefix: str, tensors: Sequence[str]) -> list[str]:
    """TF's names of the feeds' `_Arg`s or the fetches' `_Retval`s: `_arg_<node>_<output>_<i>`, i the tensor's
    place among them sorted by name, as TF's session sorts them for its executors' key."""
    rank = {tensor: i for i, tensor in enumerate(sorted(set(tensors)))}
    return [f"{prefix}{'_'.join(map(str, parse_input(tensor)))}_{rank[tensor]}" for tensor in tensors]


def prune(graph_def: GraphDef, feeds: Sequence[str], fetches: Sequence[str], targets: Sequence[str],
          types: dict[str, object] | None = None) -> GraphDef:
    """The step's subgraph. Feeds and fetches are 'node:index' names, targets node names.

    `types` maps fed and fetched tensor names to their dtypes, recorded on `_Arg`/`_Retval` as TF does.
    """
    nodes = {n.name: n for n in graph_def.node}
    types = types or {}
    fed = {}
    arg_names = _frame_names("_arg_", feeds)
    for i, feed in enumerate(feeds):
        name, index = parse_input(feed)
        if name not in nodes:
            raise errors.NotFoundError(None, None, f"FeedInputs: unable to find feed output {feed}")
        fed[(name, index)] = arg_names[i]
        if index == 0 and nodes[name].op in _PLACEHOLDERS:
            fed[(name, -1)] = "^" + fed[(name, index)]

    needed: dict[str, None] = {}
    stack = []
    for fetch in fetches:
        key = parse_input(fetch)
        if key[0] not in nodes:
            raise errors.NotFoundError(None, None, f"FetchOutputs node {fetch}: not found")
        if key not in fed:  # a fetch of a fed tensor reads the feed, not its producer
            stack.append(key[0])
    for target in targets:
        if target not in nodes:
            raise errors.NotFoundError(None, None, f"PruneForTargets: Some target nodes not found: {target}")
        stack.append(target)
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed[name] = None
        for spec in nodes[name].input:
            src, index = parse_input(spec)
            if (src, index) in fed:
                continue
            if src not in nodes:
                raise errors.InvalidArgumentError(None, None, f"Node '{name}': Unknown input node '{spec}'")
            stack.append(src)

    out = []
    for i, feed in enumerate(feeds):
        out.append(NodeDef(arg_names[i], Arg.name, [], "", {"T": types.get(feed), "index": i}))
    for node in graph_def.node:
        if node.name not in needed:
            continue
        rewired = []
        changed = False
        for spec in node.input:
            src, index = parse_input(spec)
            arg = fed.get((src, index))
            if arg is not None:
                rewired.append(arg)
                changed = True
            else:
                rewired.append(spec)
        out.append(dataclasses.replace(node, input=rewired) if changed else node)
    retval_names = _frame_names("_retval_", fetches)
    for i, fetch in enumerate(fetches):
        name, index = parse_input(fetch)
        source = fed.get((name, index)) or (name if index == 0 else f"{name}:{index}")
        out.append(NodeDef(retval_names[i], Retval.name, [source], "",
                           {"T": types.get(fetch), "index": i}))
    return GraphDef(node=out, producer=graph_def.producer)


def check_partial_run_setup(feeds: Sequence[str], fetches: Sequence[str], targets: Sequence[str]) -> None:
    """The errors TF's PRunSetup gives before it starts the step."""
    seen: set[str] = set()
    for name in feeds:
        if name in seen:
            raise errors.InvalidArgumentError(None, None, f'Endpoint "{name}" fed more than once.')
        seen.add(name)
    for name in fetches:
        if name in seen:
            raise errors.InvalidArgumentError(None, None, f"{name} is both fed and fetched.")
    if not fetches and not targets:
        raise errors.InvalidArgumentError(None, None, "Must specify at least one target to fetch or execute.")
