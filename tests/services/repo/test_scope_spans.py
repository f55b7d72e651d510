"""The innermost function around a reference, found by bisection over the file's function spans."""

from tree_sitter import QueryCursor

from services.repo import receiver_bindings, tree_queries


def test_the_innermost_function_around_a_node_is_the_one_walking_up_the_tree_finds():
    source = (
        b"def outer(a: A):\n"
        b"    def inner(b: B):\n"
        b"        def deepest(c: C):\n"
        b"            return c.go(a, b)\n"
        b"        return b.go(deepest)\n"
        b"    x = a.go()\n"
        b"    return inner\n"
        b"def after(d: D):\n"
        b"    return d.go()\n"
        b"e = E().go()\n"
    )
    tree = tree_queries.parser("python").parse(source)
    query = tree_queries.combined_query("python")[0]
    spans = {
        (nodes[role][0].start_byte, nodes[role][0].end_byte)
        for _pattern, nodes in QueryCursor(query).matches(tree.root_node)
        for role in nodes
        if role == "definition.function"
    }
    assert len(spans) == 4
    indexed = receiver_bindings.ScopeSpans(spans)
    identifiers = QueryCursor(tree_queries.identifier_query("python")).captures(tree.root_node)["ref"]
    found = {(n.text.decode(), receiver_bindings.scope_span(n, indexed)) for n in identifiers}
    walked = {(n.text.decode(), receiver_bindings.scope_span(n, set(spans))) for n in identifiers}
    assert found == walked and len({span for _name, span in found}) == 5  # four functions and the module


def test_spans_that_start_together_or_follow_each_other_keep_their_nesting():
    spans = receiver_bindings.ScopeSpans({(0, 100), (0, 40), (10, 30), (40, 60), (70, 90)})
    assert spans.innermost(12, 14) == (10, 30)
    assert spans.innermost(35, 36) == (0, 40)
    assert spans.innermost(45, 50) == (40, 60)
    assert spans.innermost(62, 65) == (0, 100), "after a sibling ended: its parent"
    assert spans.innermost(95, 99) == (0, 100)
    assert spans.innermost(120, 130) is None
    assert receiver_bindings.ScopeSpans().innermost(5, 6) is None
