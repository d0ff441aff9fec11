"""The annotations of the public API: shipped (py.typed), postponed (never evaluated at import or
per call), on every public function, and declared for type checkers where the code makes the
functions at import (the elementwise functions, ndarray's operators)."""

import ast
import inspect
import pathlib
import types

import dlnumba as xp
from dlnumba import _array_object, _elementwise_functions, _typing, fft, linalg

PACKAGE = pathlib.Path(xp.__file__).parent


def _type_checking_block(body):
    """The statements under ``if TYPE_CHECKING:`` among ``body``."""
    return [node for statement in body if isinstance(statement, ast.If)
            and getattr(statement.test, "id", None) == "TYPE_CHECKING" for node in statement.body]


def test_py_typed_marker_ships():
    assert (PACKAGE / "py.typed").is_file()


def test_every_public_function_is_annotated():
    generated = set(_elementwise_functions.FUNCTIONS)  # declared for type checkers, below
    for namespace in (xp, linalg, fft):
        for name in namespace.__all__:
            value = getattr(namespace, name)
            if not isinstance(value, types.FunctionType) or name in generated:
                continue
            annotations = inspect.unwrap(value).__annotations__
            assert "return" in annotations, f"{namespace.__name__}.{name}"
            # postponed: the annotations are strings, evaluated by no import and no call
            assert all(type(a) is str for a in annotations.values()), name


def test_ndarray_public_methods_are_annotated():
    for name, value in vars(xp.ndarray).items():
        if name.startswith("_") and not name.startswith("__") or name in ("__init__",
                                                                          "__getattr__"):
            continue
        function = value.fget if isinstance(value, property) else value
        if isinstance(function, types.FunctionType) and function.__qualname__.startswith(
                "ndarray."):
            assert "return" in function.__annotations__, name


def test_elementwise_declarations_match_the_generated_functions():
    tree = ast.parse((PACKAGE / "_elementwise_functions.py").read_text())
    block = _type_checking_block(tree.body)
    declared = {node.name: len(node.args.posonlyargs) for node in block
                if isinstance(node, ast.FunctionDef)}
    arities = {name: row[0] for name, row in _elementwise_functions.FUNCTIONS.items()}
    assert declared == arities
    names = next(ast.literal_eval(node.value) for node in block if isinstance(node, ast.Assign))
    assert names == _elementwise_functions.__all__


def test_operator_declarations_match_the_operators_set_on_ndarray():
    tree = ast.parse((PACKAGE / "_array_object.py").read_text())
    cls = next(node for node in tree.body
               if isinstance(node, ast.ClassDef) and node.name == "ndarray")
    declared = {node.name for node in _type_checking_block(cls.body)}
    set_later = {name for name, value in vars(xp.ndarray).items()
                 if isinstance(value, types.FunctionType)
                 and not value.__qualname__.startswith("ndarray.")}
    assert declared == set_later
    assert "__add__" in set_later and "__imatmul__" in set_later and "__ge__" in set_later


def test_typing_aliases_load():
    assert _typing.Device is xp.Device
    assert isinstance(xp.float32, _typing.DType.__origin__)
    assert isinstance(xp.bfloat16, _typing.DType.__origin__)
    assert _array_object.ndarray is xp.ndarray
