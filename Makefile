# markmcp: make demo | make test | make bench | make fuzz
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# test processes (pytest-xdist), each given whole files: a module's set-up is made once
TEST_WORKERS ?= 2
STAMP  := $(VENV)/.installed

.PHONY: demo test bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) samples/demo.py

# the package's bytecode is written first: the suite starts hundreds of server and CLI
# processes, which would otherwise each compile it again where PYTHONDONTWRITEBYTECODE is set
test: $(STAMP)
	$(PY) -m compileall -q src
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

bench: $(STAMP)
	$(PY) bench/run.py

# a million inputs into each parser (FigDown and its renderer, VisiMark, MRSF, the JSON-RPC layer) on two
# cores; reports crashes and inputs/s (takes hours: see bench/fuzz.py for smaller runs)
fuzz: $(STAMP)
	$(PY) bench/fuzz.py

clean:
	rm -rf $(VENV) build src/*.egg-info
