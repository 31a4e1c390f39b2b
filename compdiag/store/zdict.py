"""The preset dictionary for small texts (store/blobs.py, codec 2): the words every
structured-trace envelope and chromium event repeats, so that a 200-byte record compresses
on its own. Fixed forever: stores written with it read with it. A new dictionary is a new
codec number, never an edit of this one."""

from __future__ import annotations

# zlib prefers the end of a dictionary: the commonest text (chromium events) comes last.
ZDICT_V1 = "".join((
    '{"compdiag": {"kind": "call_stack"}}{"compdiag": {"kind": "bytecode_original", '
    '"co_name": "forward", "filename": "", "lineno": }}{"compdiag": {"kind": "fusion", '
    '"logger": "torch._inductor.scheduler.__fusion"}}{"compdiag": {"kind": "warning", '
    '"category": "UserWarning", "filename": "", "lineno": }}',
    '{"str": ["/site-packages/torch/_dynamo/", 0]}{"str": ["/site-packages/torch/nn/modules/'
    'module.py", 1]}',
    '{"dynamo_start": {"stack": [{"line": 0, "name": "<module>", "filename": 1, "loc": ""}, '
    '{"line": 0, "name": "_call_impl", "filename": 2, "loc": "return forward_call(*args, '
    '**kwargs)"}]}, ',
    '{"compilation_metrics": {"compile_id": "0/0", "frame_key": "1", "co_name": "forward", '
    '"co_filename": "", "co_firstlineno": 1, "cache_size": 0, "accumulated_cache_size": 0, '
    '"guard_count": 0, "shape_env_guard_count": 0, "graph_op_count": 0, "graph_node_count": 0,'
    ' "graph_input_count": 0, "start_time": , "entire_frame_compile_time_s": , '
    '"backend_compile_time_s": , "inductor_compile_time_s": , "code_gen_time_s": , '
    '"fail_type": null, "fail_reason": null, "fail_user_frame_filename": null, '
    '"fail_user_frame_lineno": null, "non_compliant_ops": [], "compliant_custom_ops": [], '
    '"restart_reasons": [], "dynamo_time_before_restart_s": 0.0, "has_guarded_code": true, '
    '"remote_cache_time_saved_s": null, "structured_logging_overhead_s": , '
    '"config_suppress_errors": false, "config_inline_inbuilt_nn_modules": true, '
    '"specialize_float": false, "dynamo_config": "", "is_forward": true, "num_triton_bundles":'
    ' null, "remote_fx_graph_cache_get_time_ms": null, "recompile_reason": null}}',
    '{"dynamo_output_graph": {"sizes": {"l_x_": [], "l_self_modules_": }}, '
    '{"inductor_output_code": {"filename": "", "file_path": ""}, ',
    '{"artifact": {"name": "recompile_reasons", "encoding": "json"}, '
    '{"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}, '
    '{"artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}, '
    '{"artifact": {"name": "aotautograd_cache_miss", "encoding": "json"}, '
    '{"artifact": {"name": "before_pre_grad_graph", "encoding": "string"}, '
    '{"artifact": {"name": "after_pre_grad_graph", "encoding": "string"}, '
    '{"artifact": {"name": "before_post_grad_graph", "encoding": "string"}, '
    '{"artifact": {"name": "inductor_post_grad_graph", "encoding": "string"}, '
    '{"artifact": {"name": "fx_graph_runnable", "encoding": "string"}, '
    '{"artifact": {"name": "aot_forward_graph_fw_metadata", "encoding": "string"}, '
    '{"artifact": {"name": "compiled_fn_wrapper", "encoding": "string"}, '
    '{"artifact": {"name": "runtime_wrapper_orchestration", "encoding": "string"}, '
    '{"aot_joint_graph": {}, {"aot_forward_graph": {}, {"aot_backward_graph": {}, '
    '{"dynamo_cpp_guards_str": {}, ',
    '{"describe_source": {"describer_id": 0, "id": 0, "source": "L[\'self\']._modules[\'0\']'
    '._parameters[\'weight\']"}, {"describe_storage": {"id": 0, "describer_id": 0, "size": 0},'
    ' {"describe_tensor": {"id": 0, "ndim": 2, "dtype": "torch.float32", "device": '
    '"device(type=\'cpu\')", "size": [], "dynamo_hint_overrides": {}, "is_leaf": true, '
    '"requires_grad": true, "is_parameter": true, "stride": [1], "storage": 0, "view_func": '
    '"_CustomViewFunc(func=<built-in method _view_func_unsafe of Tensor object at 0x7f)>)", '
    '"describer_id": 0}, ',
    '"name": "inductor_compile", "ts": "name": "compile_fx_inner", "ts": "name": '
    '"backend_compile", "ts": "name": "create_aot_dispatcher_function", "ts": "name": '
    '"OutputGraph.call_user_compiler", "ts": "name": "_compile.compile_inner", "ts": "name": '
    '"entire_frame_compile", "ts": "name": "dynamo", "ts": "name": "compile_attempt_0", "ts": ',
    '"cat": "dynamo_timed",\n"tid": 0,\n"pid": 0\n}{\n"name": "fx_graph_cache_miss", "ph": "i",'
    ' "s": "p",\n"args": {\n"compile_id": "0/0", "key": "", "components": [], '
    '"cache_state": "miss", "cache_event_time": , "triton_bundler_meta": null}',
    '{"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": '
    '"0"}{\n"name": "",\n"ts": 1.0,\n"args": {\n"compile_id": "0/0"\n},\n"ph": "B",\n'
    '"cat": "dynamo_timed",\n"tid": 0,\n"pid": 0\n}',
    ', "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "'
    '"}{"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}'
    '{\n"name": "",\n"ts": 1.0,\n"args": {\n"compile_id": "0/0"\n},\n"ph": "E",\n'
    '"cat": "dynamo_timed",\n"tid": 0,\n"pid": 0\n}',
)).encode("utf-8")
