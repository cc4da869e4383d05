"""A validator for the subset of JSON Schema (draft 2020-12) and of the
Kubernetes CRDs' openAPIV3Schema that plegscope's contracts use:

  type (one name or a list; "integer" is a whole number), properties,
  required, additionalProperties (false or a schema), items, enum, const,
  pattern, minimum / maximum, minLength / maxLength, minItems / maxItems,
  minProperties, anyOf, $ref to "#/$defs/<name>", and Kubernetes'
  x-kubernetes-int-or-string and nullable.

Unknown fields are errors where a schema lists `properties` and says
nothing of additionalProperties when `strict` is set: the API server prunes
them silently from a custom resource, so a recipe with a misspelt field
would be applied without it. Every keyword outside the subset (CEL rules in
x-kubernetes-validations, formats) is ignored, and listed by `ignored()` so a
test can say what it did not check.

    errors = validate(instance, schema, strict=True)   # ["spec.minHealthy: ..."]
"""

import re

_HANDLED = {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "pattern",
            "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "anyOf",
            "$ref", "$defs", "$schema", "$id", "title", "description", "default", "examples",
            "x-kubernetes-int-or-string", "nullable", "format"}


def _type_ok(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or \
            isinstance(value, float) and value.is_integer()
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise ValueError("schema type %r is outside the subset" % name)


def _resolve(schema, root):
    while "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise ValueError("$ref %r is outside the subset" % ref)
        schema = root["$defs"][ref[len("#/$defs/"):]]
    return schema


def validate(instance, schema, strict=False):
    """Every violation, as "path: what"; empty when the instance conforms."""
    errors = []
    _check(instance, schema, schema, "$", strict, errors)
    return errors


def ignored(schema):
    """The keywords of `schema` this validator does not check, sorted."""
    found = set()

    def walk(s):
        if isinstance(s, dict):
            for k, v in s.items():
                if k not in _HANDLED:
                    found.add(k)
                if k in ("properties", "$defs"):
                    for sub in v.values():
                        walk(sub)
                elif k in ("items", "additionalProperties"):
                    walk(v)
                elif k == "anyOf":
                    for sub in v:
                        walk(sub)
    walk(schema)
    return sorted(found)


def _check(value, schema, root, path, strict, errors):
    schema = _resolve(schema, root)
    if value is None and schema.get("nullable"):
        return
    if schema.get("x-kubernetes-int-or-string"):
        if not (_type_ok(value, "integer") or isinstance(value, str)):
            errors.append("%s: %r is neither an integer nor a string" % (path, value))
            return
        if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append("%s: %r does not match %s" % (path, value, schema["pattern"]))
        return
    if "anyOf" in schema:
        if not any(not validate_sub(value, sub, root, path, strict) for sub in schema["anyOf"]):
            errors.append("%s: %r matches none of anyOf" % (path, value))
            return
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, n) for n in names):
            errors.append("%s: %r is not %s" % (path, value, " or ".join(names)))
            return
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r is not %r" % (path, value, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %s" % (path, value, schema["enum"]))
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append("%s: %r does not match %s" % (path, value, schema["pattern"]))
        if len(value) < schema.get("minLength", 0):
            errors.append("%s: shorter than %d" % (path, schema["minLength"]))
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append("%s: longer than %d" % (path, schema["maxLength"]))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append("%s: %r is below %r" % (path, value, schema["minimum"]))
        if "maximum" in schema and value > schema["maximum"]:
            errors.append("%s: %r is above %r" % (path, value, schema["maximum"]))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append("%s: fewer than %d items" % (path, schema["minItems"]))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append("%s: more than %d items" % (path, schema["maxItems"]))
        if "items" in schema:
            for i, item in enumerate(value):
                _check(item, schema["items"], root, "%s[%d]" % (path, i), strict, errors)
    if isinstance(value, dict):
        if len(value) < schema.get("minProperties", 0):
            errors.append("%s: fewer than %d properties" % (path, schema["minProperties"]))
        for name in schema.get("required", []):
            if name not in value:
                errors.append("%s: %s is required" % (path, name))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", None if strict and props else True)
        for name, item in value.items():
            where = "%s.%s" % (path, name)
            if name in props:
                _check(item, props[name], root, where, strict, errors)
            elif extra is False or (extra is None):
                errors.append("%s: not a field of this schema" % where)
            elif isinstance(extra, dict):
                _check(item, extra, root, where, strict, errors)


def validate_sub(value, schema, root, path, strict):
    errors = []
    _check(value, schema, root, path, strict, errors)
    return errors
