"""tests/qbj/qbj.schema.json against the published quizbowl Tournament Schema (issue 37): the
schema is published as GraphQL only (tests/qbj/graphql, vendored unchanged), so the JSON Schema
the exports are validated with is a transcription; each type it defines must have exactly the
GraphQL type's fields (besides `id`, `type` and `$ref`, serialization.md's), and require
exactly its `!` fields.
"""

import json
import re

from tablebuzz.paths import REPO

QBJ = REPO / "tests" / "qbj"


def graphql_types():
    """{type name: {field: required}} of the vendored GraphQL files (descriptions dropped)."""
    types = {}
    for path in sorted((QBJ / "graphql").glob("*.graphql")):
        text = re.sub(r'"""[\s\S]*?"""', "", path.read_text())
        for name, body in re.findall(r"\btype\s+(\w+)\s*\{([^}]*)\}", text):
            fields = {}
            for field, kind in re.findall(r"^\s*(\w+)\s*:\s*([^\n#]+)", body, re.M):
                fields[field] = kind.strip().endswith("!")
            types[name] = fields
    return types


def test_the_json_schema_transcribes_the_published_graphql_types():
    schema = json.loads((QBJ / "qbj.schema.json").read_text())
    published = graphql_types()
    assert {"Match", "MatchTeam", "MatchQuestion", "MatchQuestionBuzz", "Team", "Player"} <= set(
        published)
    checked = 0
    for name, definition in schema["$defs"].items():
        if name == "Reference":
            continue
        # `id`: serialization.md makes it optional in a file (an object used once needs none)
        fields = {f: req for f, req in published[name].items() if f != "id"}
        own = set(definition.get("properties", {})) - {"id"}
        if "type" not in fields:  # serialization.md's object type (Question has a field so named)
            own.discard("type")
        assert own == set(fields), (name, own ^ set(fields))
        required = {f for f, req in fields.items() if req}
        assert set(definition.get("required") or []) == required, name
        checked += 1
    assert checked >= 15


def test_the_check_can_fail():
    published = graphql_types()
    assert published["MatchQuestionBuzz"] == {"team": True, "player": True,
                                              "buzz_position": False, "result": True}
    assert published["BuzzPosition"]["word_index"] is False  # a position may be unknown
