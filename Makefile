VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo figure1 trace test bench clean

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed-dev: $(PY) pyproject.toml
	$(PY) -m pip install -q -e '.[dev,demo]'
	touch $@

$(VENV)/.installed-demo: $(PY) pyproject.toml
	$(PY) -m pip install -q -e '.[demo]'
	touch $@

demo: $(VENV)/.installed-demo
	$(PY) -m examples.digits_cnn

figure1: $(VENV)/.installed-dev
	$(PY) examples/figure1.py

# Figure 1 over two CPU devices, one FULL_TRACE step written as Chrome trace JSON (figure1_trace.json)
trace: $(VENV)/.installed-dev
	$(PY) examples/trace_figure1.py

test: $(VENV)/.installed-dev
	$(PY) -m ruff check tensorweave tests benchmarks examples tools
	$(PY) -m pytest

bench: $(VENV)/.installed-dev
	$(PY) -m benchmarks.workloads

clean:
	rm -rf $(VENV) build *.egg-info

# Compile our TF-compatible .proto files into the committed FileDescriptorSet (loaded into a private pool).
.PHONY: protos
protos: $(VENV)/.installed-dev
	$(PY) -m grpc_tools.protoc -I. --include_imports \
		--descriptor_set_out=tensorweave/formats/proto/tensorflow.fds tensorweave/formats/proto/*.proto
