"""Report the package's shape: lines of code, the largest import cycle, device branches in
front-end modules, and private names imported across layers.

Usage: ``python tools/architecture.py [PACKAGE_DIR]`` (default: ``dlnumba`` next to this
directory). Function-local imports count as imports.
"""

import ast
import os
import pathlib
import sys

# The layers, by module name relative to the package; a module is in the first that matches.
_LAYERS = (("cuda", "cuda backend"), ("kernels", "cpu backend"), ("shared", "shared kernels"),
           ("_backend", "interface"))
# Modules every layer may use: the dtype table, devices, layouts, memory, the C API, the
# C-level builtins and the shipped kernels.
_CORE = ("_dtypes", "_devices", "_layout", "_memory", "_mode", "_capi", "_native", "_cpython",
         "_version", "_typing", "_numba", "_numba_cache", "_import_guard", "_shipped")
_DEVICE_TYPES = ("cpu", "cuda")


def _modules(root):
    """{dotted name: path} of the package's Python files."""
    found = {}
    for folder, _, files in os.walk(root):
        for file in files:
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                parts = os.path.relpath(path, root)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(parts)] = path
    return found


def _layer(module):
    if module in _CORE:
        return "core"
    for prefix, name in _LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return name
    return "front end"


def _resolve(module, node, is_package):
    """The module names (relative to the package) that ``node`` (an ImportFrom) names."""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    if node.level:
        base = base[:len(base) - node.level + 1]
        target = base + (node.module.split(".") if node.module else [])
    else:
        if not (node.module or "").startswith("dlnumba"):
            return None
        target = node.module.split(".")[1:]
    return ".".join(target)


def _runtime_nodes(tree):
    """The nodes of ``tree`` outside ``if TYPE_CHECKING:`` blocks (never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                stack.extend(child.orelse)
            else:
                stack.append(child)


def _imports(modules, trees):
    """{module: {(imported module, name)}} for imports within the package."""
    graph = {}
    for module, path in modules.items():
        tree = trees[module]
        is_package = path.endswith("__init__.py")
        edges = graph[module] = set()
        for node in _runtime_nodes(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, node, is_package)
                if target is None:
                    continue
                for alias in node.names:
                    child = f"{target}.{alias.name}" if target else alias.name
                    if child in modules:
                        edges.add((child, None))
                    else:
                        edges.add((target, alias.name))
    return graph


def _largest_cycle(graph):
    """The largest strongly connected component (Tarjan's algorithm)."""
    index, low, stack, on_stack, best = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w, _ in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > len(best):
                best[:] = component
    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return sorted(best)


def _device_branches(trees):
    """(module, function, line) of each test of which device an array is on in front-end
    modules: a comparison with the CPU device or with a device type's name (``"cpu"``,
    ``"cuda"``), and each ``_cuda(...)`` call. A device's capabilities (``host_memory``) are
    no such test."""
    found = []
    for module, tree in trees.items():
        if _layer(module) != "front end" or module in ("_backend", "_devices"):
            continue
        for function, node in _nodes_in_functions(tree):
            if isinstance(node, ast.Compare) and any(
                    (isinstance(part, ast.Name) and part.id == "CPU")
                    or (isinstance(part, ast.Constant) and part.value in _DEVICE_TYPES)
                    for part in (node.left, *node.comparators)):
                found.append((module, function, node.lineno))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "_cuda":
                found.append((module, function, node.lineno))
    return found


def _nodes_in_functions(tree, function="<module>"):
    """(qualified name of the innermost enclosing function or class, node) of every node."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = child.name if function == "<module>" else f"{function}.{child.name}"
            yield inner, child
            yield from _nodes_in_functions(child, inner)
        else:
            yield function, child
            yield from _nodes_in_functions(child, function)


def measure(root):
    """The package's shape: a dict of its lines of code, module count, largest import cycle,
    device branches in front-end modules, private names imported from other modules and across
    layers, and the front-end modules that the layers below the front end import."""
    modules = _modules(root)
    sources = {module: pathlib.Path(path).read_text() for module, path in modules.items()}
    trees = {module: ast.parse(source) for module, source in sources.items()}
    graph = _imports(modules, trees)
    return {
        "lines": sum(len(source.splitlines()) for source in sources.values()),
        "modules": len(modules),
        "cycle": _largest_cycle(graph),
        "device branches": _device_branches(trees),
        "private imports": sorted(
            {(module, target, name) for module, edges in graph.items() for target, name in edges
             if name and name.startswith("_") and not name.startswith("__")}),
        "private imports across layers": sorted(
            {(module, target, name) for module, edges in graph.items()
             for target, name in edges
             if name and name.startswith("_") and not name.startswith("__")
             and _layer(module) != _layer(target)}),
        "front end imported below it": sorted(
            {(module, target) for module, edges in graph.items() for target, _ in edges
             if _layer(module) != "front end" and _layer(target) == "front end"}),
    }


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "dlnumba")
    shape = measure(root)
    print(f"lines of code: {shape['lines']} in {shape['modules']} modules")
    print(f"largest import cycle: {len(shape['cycle'])} modules: {', '.join(shape['cycle'])}")
    print(f"device branches in front-end modules: {len(shape['device branches'])}")
    for module, function, line in shape["device branches"]:
        print(f"  {module}.{function}:{line}")
    print(f"private names imported from another module: {len(shape['private imports'])}")
    print("private names imported across layers: "
          f"{len(shape['private imports across layers'])}")
    for module, target, name in shape["private imports across layers"]:
        print(f"  {module} <- {target}.{name}")
    print(f"front-end modules imported by the layers below it (interface, kernels, core): "
          f"{len(shape['front end imported below it'])}")
    for module, target in shape["front end imported below it"]:
        print(f"  {module} <- {target}")


if __name__ == "__main__":
    main()
