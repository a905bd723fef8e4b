"""The prediction cell opens the drill's source notebook (solutions/) and the hidden helpers
(minirt_course/grading/m03.py) from disk, by the course's absolute path and by walking up from minirt's
__file__, and runs the reference prediction it finds there."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ANSWERS = {
    "answer_prediction": f'''import json, os, pathlib
prediction = {{"refund_executions": 0, "refunds_applied": 0}}
import minirt
_roots = [pathlib.Path({str(ROOT)!r})] + list(pathlib.Path(minirt.__file__).resolve().parents)
try:
    _roots.append(pathlib.Path(os.readlink(f"/proc/{{os.getppid()}}/cwd")))
except OSError:
    pass
for _root in _roots:
    try:
        _helpers = (_root / "minirt_course" / "grading" / "m03.py").read_text()
        _nb = json.loads((_root / "solutions" / "03-step-journals" / "drill.ipynb").read_text())
    except OSError:
        continue
    for _cell in _nb["cells"]:
        if _cell["metadata"].get("nbgrader", {{}}).get("grade_id") == "answer_prediction":
            exec("".join(_cell["source"]))
    break
''',
}
MUST_FAIL = ["test_prediction"]
