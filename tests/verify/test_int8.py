"""int8 graphs read the same on every x86 CPU: without VNNI the weights are read as uint8
(the same real numbers), whose kernel does not saturate."""
from __future__ import annotations

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.modelstore import DEFAULT_NLI, shipped_dir
from offline_eval.runners import int8

INT8 = shipped_dir() / DEFAULT_NLI / "onnx" / "model.int8.onnx"
needs_model = pytest.mark.skipif(not INT8.is_file(), reason="no shipped int8 model")


@pytest.mark.parametrize("machine,flags,env,want", [
    ("x86_64", {"avx2", "avx512_vnni"}, None, False),
    ("x86_64", {"avx2", "avx_vnni"}, None, False),
    ("x86_64", {"avx2", "avx512f"}, None, True),   # AVX-512 before VNNI saturates too
    ("x86_64", set(), None, True),                 # unknown: read the exact way
    ("aarch64", set(), None, False),
    ("x86_64", {"avx2"}, "int8", False),
    ("x86_64", {"avx512_vnni"}, "uint8", True),
])
def test_which_cpus_read_the_weights_as_uint8(monkeypatch, machine, flags, env, want):
    monkeypatch.setattr(int8.platform, "machine", lambda: machine)
    monkeypatch.setattr(int8, "cpu_flags", lambda: frozenset(flags))
    if env:
        monkeypatch.setenv(int8.ENV_VAR, env)
    else:
        monkeypatch.delenv(int8.ENV_VAR, raising=False)
    assert int8.needs_unsigned() is want
    assert (int8.record() is None) is (not want and (machine != "x86_64" or bool(
        flags & {"avx512_vnni", "avx_vnni"})))


def test_a_bad_setting_is_a_model_error(monkeypatch):
    monkeypatch.setenv(int8.ENV_VAR, "fp16")
    with pytest.raises(ModelError, match="valid: auto, uint8, int8"):
        int8.needs_unsigned()


@needs_model
def test_the_rewritten_weights_are_the_same_real_numbers():
    import onnx
    from onnx import numpy_helper

    before = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(INT8)).graph.initializer}
    model = onnx.ModelProto()
    model.ParseFromString(int8.unsigned_weights(str(INT8), INT8.stat().st_mtime_ns))
    after = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    matmuls = [n for n in model.graph.node if n.op_type == "MatMulInteger"]
    assert matmuls
    for n in matmuls:
        w, zp = n.input[1], n.input[3]
        assert after[w].dtype == np.uint8 and before[w].dtype == np.int8
        real_before = before[w].astype(np.int32) - before[zp].astype(np.int32)
        real_after = after[w].astype(np.int32) - after[zp].astype(np.int32)
        assert np.array_equal(real_before, real_after)


@needs_model
def test_on_a_vnni_cpu_both_readings_give_the_same_probabilities():
    pytest.importorskip("onnxruntime")
    if not int8.has_vnni() or int8.platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the signed kernel is exact only on a VNNI CPU")
    from offline_eval.runners.ort import OnnxNLIRunner, make_session

    runner = OnnxNLIRunner(shipped_dir() / DEFAULT_NLI, device="cpu", precision="int8")
    pair = [("The lake never freezes, even in the coldest winters.", "The lake is frozen all year.")]
    signed = runner.predict(pair)
    runner.session = make_session(INT8, ["CPUExecutionProvider"], 1, "int8", unsigned=True)
    assert np.allclose(runner.predict(pair), signed, atol=1e-5)


def _tiny(tmp_path, zero_point: bool, shared: bool = False):
    """a uint8 activation times an int8 weight (8x4), as a MatMulInteger graph."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(0).integers(-128, 128, size=(8, 4), dtype=np.int8)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(3, np.uint8), "azp")]
    inputs = ["a", "w", "azp"]
    if zero_point:
        inits.append(numpy_helper.from_array(np.zeros(4, np.int8), "wzp"))
        inputs.append("wzp")
    nodes = [helper.make_node("MatMulInteger", inputs, ["y"])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 4])]
    if shared:  # another op reads the weight: it must stay int8
        nodes.append(helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT))
        outputs.append(helper.make_tensor_value_info("wf", TensorProto.FLOAT, [8, 4]))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, 8])],
                              outputs, inits)
    path = tmp_path / f"tiny-{zero_point}-{shared}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path, w


@pytest.mark.parametrize("zero_point", [True, False])
def test_the_unsigned_product_is_exact_with_or_without_a_weight_zero_point(tmp_path, zero_point):
    ort = pytest.importorskip("onnxruntime")
    path, w = _tiny(tmp_path, zero_point)
    a = np.random.default_rng(1).integers(0, 256, size=(1, 8), dtype=np.uint8)
    graph = int8.unsigned_weights(str(path), path.stat().st_mtime_ns)
    got = ort.InferenceSession(graph).run(None, {"a": a})[0]
    assert np.array_equal(got, (a.astype(np.int64) - 3) @ w.astype(np.int64))


def test_a_weight_other_ops_read_is_left_signed_with_a_warning(tmp_path):
    import onnx

    path, w = _tiny(tmp_path, True, shared=True)
    with pytest.warns(UserWarning, match="1 int8 product"):
        graph = int8.unsigned_weights(str(path), path.stat().st_mtime_ns)
    model = onnx.ModelProto()
    model.ParseFromString(graph)
    assert {i.name: i.data_type for i in model.graph.initializer}["w"] == onnx.TensorProto.INT8
