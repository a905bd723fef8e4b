"""The prediction cell searches the disk for the drill's source notebook (from the course's
absolute path, its working folder upwards, the checker's /proc entries) and copies the reference
counts; it also tries to overwrite minirt_course/grading/m08.py for the next grading run."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
ANSWERS = {
    "answer_prediction": f'''import json, os, pathlib, re
predicted_emails = 0
predicted_refunds = 0
_places = [pathlib.Path({str(ROOT)!r}), *pathlib.Path.cwd().parents]
for _pid in (os.getppid(), 1):
    for _link in ("cwd", "root"):
        try:
            _places.append(pathlib.Path(f"/proc/{{_pid}}/{{_link}}").resolve())
        except OSError:
            pass
for _place in _places:
    _nb = _place / "solutions" / "08-cancellation" / "drill.ipynb"
    try:
        _text = _nb.read_text()
    except OSError:
        continue
    _m = re.search(r"predicted_emails = (\\d+).*?predicted_refunds = (\\d+)", _text, re.S)
    if _m:
        predicted_emails, predicted_refunds = int(_m.group(1)), int(_m.group(2))
    try:
        with open(_place / "minirt_course" / "grading" / "m08.py", "a") as _fh:
            _fh.write("")
    except OSError:
        pass
    break
''',
}
MUST_FAIL = ["test_prediction"]
