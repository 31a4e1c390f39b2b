"""The store's schema, in one place.

Raw structured-trace records are kept verbatim in `records` (unknown kinds included), so a
newer torch never loses data; the other tables are derived facts that views query directly.
Payloads are text and tensors raw bytes: nothing read back is ever executed or unpickled.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from compdiag.formats.command_line import DEFAULT_STORE, command_line
from compdiag.store import blobs

# The `--json` documents' "schema_version": their keys, which DESIGN.md fixes. It is not the
# store file's layout: a new store layout must not change what scripts parse.
SCHEMA_VERSION = 1
# The store file's layout (meta 'schema_version'). 2: the facts explain used to re-parse from
# raw records are stored at ingest (graph-break details, recompile events, guard values, graph
# nodes, perf hints, injected bugs, fallback calls, scheduler nodes). A store of an older
# layout is refused by readers with a one-line note; `compdiag reindex` upgrades it in place.
# 3: cache lookups with their key components, compile-time stages, ranks and jobs, runtime
# exceptions (new tables and columns only: migrate() adds them).
# 4: the text of every user file a stored fact names (`sources`, issue 29 §1), so analyses
# read the user's lines from the store, not from files that may have moved; `compdiag
# reindex` fills it for older runs from the files that are still there.
STORE_VERSION = 4
# A failure message holds "(in the backward graph)" when AOTAutograd's lazily compiled
# backward failed (bwd_compilation_metrics): the one fact about a failure with no column of its own.
BACKWARD_FAILURE_NOTE = "in the backward graph"
# An accuracy row's verdict for a graph whose --check-accuracy comparison could not run (its
# detail holds the error): it compared nothing, so Reader.accuracy keeps it apart.
NOT_COMPARED = "not_compared"
# An accuracy row's `inputs` entry for an input that aliases an earlier one: "(ALIAS_WORDS N)".
ALIAS_WORDS = "shares the storage of input"



class StoreError(Exception):
    """A store that cannot be opened or read; its message is one line for the user."""


class StoreNeedsReindex(StoreError):
    """A store of an older layout: its raw records are all there, its derived facts are not."""

    def __init__(self, path: Path, version: int) -> None:
        self.path, self.version = path, version
        super().__init__(f"{path} is a store of schema {version}, this compdiag reads schema "
                         f"{STORE_VERSION}: run `{command_line('reindex', store=path)}` once (it "
                         "re-derives the facts from the store's raw records; nothing is lost)")


def default_store_path() -> Path:
    return Path(os.environ.get("COMPDIAG_STORE", DEFAULT_STORE))


DDL = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    source        TEXT NOT NULL,          -- 'run' | 'import'
    argv          TEXT NOT NULL,          -- JSON list
    cwd           TEXT,
    started_at    REAL NOT NULL,          -- unix seconds
    ended_at      REAL,
    exit_code     INTEGER,                -- NULL while running or when killed before the end
    status        TEXT NOT NULL,          -- running | done | killed | crashed | imported | partial
    torch_version TEXT,
    device        TEXT,
    mode          TEXT,
    pid           INTEGER,
    rank          INTEGER,                -- torch.distributed: RANK, WORLD_SIZE, LOCAL_RANK
    world_size    INTEGER,
    local_rank    INTEGER,
    job           TEXT                    -- the ranks of one launch share it (NULL: no job)
);
CREATE TABLE IF NOT EXISTS warnings (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id  INTEGER NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,          -- envelope key, or 'artifact:<name>' / 'compdiag:<name>'
    compile_id TEXT,                   -- '0/1', '0/1_1' (attempt), '!0/0/1' (compiled autograd),
                                       -- '0/1@1' (after a reset): formats/compile_id.py
    metadata   TEXT NOT NULL,          -- the envelope, JSON, verbatim
    payload    TEXT
);
CREATE INDEX IF NOT EXISTS records_run_kind ON records(run_id, kind);
CREATE INDEX IF NOT EXISTS records_run_cid ON records(run_id, compile_id);
CREATE TABLE IF NOT EXISTS compiles (
    run_id      INTEGER NOT NULL,
    compile_id  TEXT NOT NULL,          -- formats/compile_id.py: '0/1', '0/1_2', '0/1@1'
    frame       INTEGER,
    frame_compile INTEGER,
    attempt     INTEGER NOT NULL DEFAULT 0,
    generation  INTEGER NOT NULL DEFAULT 0,  -- torch._dynamo.reset()s before it (store 3)
    compiled_autograd INTEGER,              -- the '!N' of a compiled-autograd compile
    co_name     TEXT,
    filename    TEXT,
    lineno      INTEGER,
    status      TEXT NOT NULL DEFAULT 'started',  -- started | ok | graph_break | failed | empty
    stage_times TEXT NOT NULL DEFAULT '{}',       -- JSON {stage: seconds}
    metrics     TEXT,                             -- compilation_metrics, JSON, verbatim
    -- facts of compilation_metrics (ingest; reindex fills them in older stores):
    automatic_dynamic INTEGER,                    -- dynamo_config's automatic_dynamic_shapes
    guard_count INTEGER,
    assume_static INTEGER,                        -- dynamo_config's assume_static_by_default
                                                  -- (0: torch.compile(dynamic=True))
    PRIMARY KEY (run_id, compile_id)
);
CREATE TABLE IF NOT EXISTS graph_breaks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    reason     TEXT NOT NULL,
    gb_type    TEXT,
    gb_code    TEXT,
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT,
    hints      TEXT NOT NULL DEFAULT '[]',
    explanation   TEXT,                -- torch's 'Explanation:' line
    debug_context TEXT,                -- 'Developer debug context:'
    gb_type_inner TEXT,                -- the type under "Failed to handle graph break gracefully"
    user_stack    TEXT NOT NULL DEFAULT '[]',  -- JSON frames of 'User code traceback:'
    frame_skipped INTEGER NOT NULL DEFAULT 0,  -- Dynamo could not resume: the frame ran in eager
    torch_message TEXT,                -- torch's graph-break reason, whole (schema 3)
    lib_frame     TEXT,                -- JSON frame: the library code the break is inside
    root_cause    TEXT,                -- the innermost chained exception: 'Type: message'
    root_value    TEXT,                -- the kind of value it names ('data_ptr'), if any
    skip_why      TEXT                 -- why the whole frame was skipped: torch's chained break
);
CREATE TABLE IF NOT EXISTS recompiles (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    reason     TEXT NOT NULL,
    guard      TEXT
);
CREATE TABLE IF NOT EXISTS failures (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    stage      TEXT NOT NULL,
    exc_type   TEXT,
    message    TEXT,
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT,
    traceback  TEXT,
    torch_message TEXT,                -- the exception's message, every line (schema 3)
    -- facts of the failure's text (ingest; reindex fills them in older stores):
    gb_code    TEXT,                   -- the graph break it reports (its registry URL)
    gb_explanation TEXT,               -- torch's explanation of that break
    recompile_limit INTEGER,           -- Dynamo gave up: the recompile limit was hit
    constraint_sources TEXT,           -- ConstraintViolationError: the sources violated (JSON)
    constraint_frames TEXT,            -- ... and its "User stack:" frames (JSON)
    torch_frames TEXT,                 -- frames torch's message points at, "Stack trace:" (JSON)
    op         TEXT,                   -- the op torch names ("Error in op: ..."), `ns.name.overload`
    -- issue 29: a fake-tensor run that raised (capture/exception_origin.py, else torch's text)
    fake_op    TEXT,                   -- the op whose fake run raised
    origin_exc TEXT,                   -- the exception it raised, "Type: message"
    origin     TEXT,                   -- who raised it: torch | check | fake_kernel (NULL: unknown)
    submodule  TEXT,                   -- the call_module an FX interpreter ran (a DDP piece)
    raise_site TEXT,                   -- the frame that raised the exception, and its caller (JSON)
    failed_guards TEXT                 -- a refused recompile's failed guards, classified (JSON)
);
CREATE TABLE IF NOT EXISTS kernels (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    name       TEXT NOT NULL,
    backend    TEXT NOT NULL,          -- triton | cpp | extern
    source     TEXT,
    fx_nodes   TEXT NOT NULL DEFAULT '[]',
    fused_ops  TEXT NOT NULL DEFAULT '[]',
    user_lines TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS fusion (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    node1      TEXT,
    node2      TEXT,
    fused      INTEGER NOT NULL,
    reason     TEXT
);
CREATE TABLE IF NOT EXISTS cudagraphs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    applied    INTEGER NOT NULL,
    reason     TEXT,
    -- facts of the skip reason (ingest; reindex fills them in older stores):
    head       TEXT,                   -- the reason without the trace torch appends
    frames     TEXT,                   -- JSON: the "Found from" frames
    ops        TEXT                    -- JSON: the aten ops it names
);
CREATE TABLE IF NOT EXISTS autotune (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    op         TEXT,
    choice     TEXT,
    detail     TEXT
);
CREATE TABLE IF NOT EXISTS cache_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    cache      TEXT NOT NULL,          -- fx_graph | aotautograd | ... (the artifact's prefix)
    hit        INTEGER NOT NULL,
    key        TEXT,
    result     TEXT,                   -- hit | miss | bypass | disabled (store 3)
    reason     TEXT,                   -- torch's bypass reason
    detail     TEXT,                   -- torch's cache_status_detailed (full_miss, ...)
    seq        INTEGER,                -- the record's: its key components share it
    time_saved_s REAL,                 -- the compile time a hit saved, torch's figure
    node       TEXT                    -- a bypass: JSON {target, name, call, frame, after} of
                                       -- the graph node it refused (ingest/graph_calls.py)
);
CREATE TABLE IF NOT EXISTS accuracy (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    output     TEXT,
    max_abs    REAL,
    max_rel    REAL,
    ok         INTEGER NOT NULL,
    detail     TEXT
);
-- Per-compile lookups (the TUI's selection); additive, created with new stores.
CREATE INDEX IF NOT EXISTS graph_breaks_run_cid ON graph_breaks(run_id, compile_id);
CREATE INDEX IF NOT EXISTS recompiles_run_cid ON recompiles(run_id, compile_id);
CREATE INDEX IF NOT EXISTS failures_run_cid ON failures(run_id, compile_id);
CREATE INDEX IF NOT EXISTS kernels_run_cid ON kernels(run_id, compile_id);
CREATE INDEX IF NOT EXISTS fusion_run_cid ON fusion(run_id, compile_id);
CREATE INDEX IF NOT EXISTS cudagraphs_run_cid ON cudagraphs(run_id, compile_id);
CREATE INDEX IF NOT EXISTS accuracy_run_cid ON accuracy(run_id, compile_id);
CREATE TABLE IF NOT EXISTS tensors (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    role       TEXT NOT NULL,          -- e.g. 'input:3'
    dtype      TEXT NOT NULL,
    shape      TEXT NOT NULL,          -- JSON list
    stride     TEXT,
    data       BLOB
);

-- schema 2: facts derived from raw records at ingest (re-derived by `compdiag reindex`).
-- One event per recompiled compile id: the guard that failed, classified. source 'metrics'
-- (compilation_metrics' first recompile_reason) wins over 'reasons' (the recompile_reasons
-- artifact, the only one a partial log may have) for the same compile.
CREATE TABLE IF NOT EXISTS recompile_events (
    run_id      INTEGER NOT NULL,
    compile_id  TEXT NOT NULL,
    source      TEXT NOT NULL,          -- metrics | reasons
    seq         INTEGER NOT NULL,       -- order of arrival
    failed_guard TEXT NOT NULL,         -- the guard line, torch's words
    user_stack  TEXT NOT NULL DEFAULT '[]',  -- JSON frames of 'User stack trace:'
    category    TEXT NOT NULL,          -- size | stride | dtype | ... | other
    guarded     TEXT,                   -- the guarded expression, e.g. L['x'].size()[0]
    tensor      TEXT,
    before      TEXT,
    after       TEXT,
    loc_filename TEXT,                  -- where the guarded value is read ('# file:line')
    loc_lineno  INTEGER,
    loc_line    TEXT,
    PRIMARY KEY (run_id, compile_id, source)
);
-- The Python stack when a compile started (dynamo_start), file names resolved.
CREATE TABLE IF NOT EXISTS compile_stacks (
    run_id     INTEGER NOT NULL,
    compile_id TEXT NOT NULL,
    frames     TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (run_id, compile_id)
);
-- `X == V` guards of each compiled entry (dynamo_cpp_guards_str).
CREATE TABLE IF NOT EXISTS guard_values (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,       -- the record's: a compile's last guard tree counts
    guarded    TEXT NOT NULL,
    value      TEXT
);
CREATE INDEX IF NOT EXISTS guard_values_run_cid ON guard_values(run_id, compile_id);
-- Post-grad graph nodes: ATen op and the user line torch noted.
CREATE TABLE IF NOT EXISTS graph_nodes (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,       -- the record's: a compile's last post-grad graph counts
    node       TEXT NOT NULL,
    op         TEXT,                   -- the node's op name (cumsum for cumsum_1)
    target     TEXT,                   -- aten.cumsum.default
    meta       TEXT,                   -- torch's annotation: dtype, shape, stride, device
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT,
    stack      TEXT                    -- JSON frames, the user's first, where the graph text
                                       -- names a library's innermost frame only (issue 29 §1)
);
CREATE INDEX IF NOT EXISTS graph_nodes_run_cid ON graph_nodes(run_id, compile_id);
-- The nodes of the graph Dynamo handed its backend, each at the user line torch noted
-- (dynamo_output_graph): node evidence for every backend, also one that writes no post-grad
-- graph (eager, aot_eager), and the node a failure in an FX module's generated code names.
CREATE TABLE IF NOT EXISTS dynamo_nodes (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,       -- the record's: a compile's last Dynamo graph counts
    node       TEXT NOT NULL,
    call       TEXT,                   -- the node's code (torch.sin(l_x_), l_a_.pow_(l_b_))
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT
);
CREATE INDEX IF NOT EXISTS dynamo_nodes_run_cid ON dynamo_nodes(run_id, compile_id);
-- Inductor's perf_hints lines.
CREATE TABLE IF NOT EXISTS perf_hints (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      INTEGER NOT NULL,
    compile_id  TEXT,
    message     TEXT NOT NULL,
    head        TEXT NOT NULL,
    frames      TEXT NOT NULL DEFAULT '[]',
    fallback_op TEXT                   -- aten op of a 'FallbackKernel:' hint
);
-- Inductor *_TESTING_ONLY bug injectors on in a compile (its inductor_config).
CREATE TABLE IF NOT EXISTS injected_bugs (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    config     TEXT NOT NULL,
    value      TEXT                    -- JSON
);
-- ATen ops the wrapper calls directly (fallback kernels), from the output code.
CREATE TABLE IF NOT EXISTS fallback_calls (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,       -- the record's: a compile's last output code counts
    op         TEXT NOT NULL            -- aten.cumsum
);
-- The fusion logger's candidate entries: scheduler node -> FX origins and user lines (live
-- capture only: the candidate listings are not kept as records).
CREATE TABLE IF NOT EXISTS sched_nodes (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    name       TEXT NOT NULL,          -- op3
    origins    TEXT NOT NULL DEFAULT '[]',
    frames     TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (run_id, compile_id, name)
);

-- compdiag perf (additive; created on older stores too when opened for writing, see
-- ADDITIVE_DDL): raw eager/compiled samples per compiled graph (per-call seconds, JSON lists),
-- the process' peak memory per run, and the analysis' report kept for the TUI.
CREATE TABLE IF NOT EXISTS perf_graphs (
    run_id       INTEGER NOT NULL,
    compile_id   TEXT NOT NULL,
    eager_s      TEXT NOT NULL DEFAULT '[]',
    compiled_s   TEXT NOT NULL DEFAULT '[]',
    inner        INTEGER,               -- calls per sample
    warmup       INTEGER,
    timer        TEXT,                  -- perf_counter | cuda_events
    device       TEXT,
    grad_enabled INTEGER,
    n_inputs     INTEGER,
    input_bytes  INTEGER,
    output_bytes INTEGER,
    output_copy_s REAL,                 -- median time to copy the outputs once
    calls        INTEGER,               -- calls of the compiled graph in the whole run
    error        TEXT,
    PRIMARY KEY (run_id, compile_id)
);
CREATE TABLE IF NOT EXISTS perf_runs (
    run_id          INTEGER PRIMARY KEY,
    mode            TEXT,
    peak_rss_bytes  INTEGER,
    peak_cuda_bytes INTEGER,
    device          TEXT,
    program_s       REAL,
    settings        TEXT
);
-- whole calls of a torch.compile'd nn.Module: its original module (eager, Python included) vs
-- the OptimizedModule (guards, graphs, the Python between them), per-call seconds.
CREATE TABLE IF NOT EXISTS perf_calls (
    run_id       INTEGER NOT NULL,
    target       TEXT NOT NULL,         -- the module's class, '#2' etc. for a second instance
    eager_s      TEXT NOT NULL DEFAULT '[]',
    compiled_s   TEXT NOT NULL DEFAULT '[]',
    inner        INTEGER,
    warmup       INTEGER,
    timer        TEXT,
    device       TEXT,
    grad_enabled INTEGER,
    at_call      INTEGER,               -- which call of the module was timed (before it ran)
    calls        INTEGER,               -- calls of the module in the whole run
    error        TEXT,
    PRIMARY KEY (run_id, target)
);
CREATE TABLE IF NOT EXISTS perf_reports (
    run_id     INTEGER PRIMARY KEY,    -- the run the report is filed under
    created_at REAL NOT NULL,
    document   TEXT NOT NULL           -- `compdiag perf --json`, verbatim
);
-- The call that started each compile, as capture saw the live Python stack at dynamo_start
-- (torch's own dynamo_start stack drops the caller's frame and compile_wrapper): the user
-- frames, outermost first, and the compiled frame's object arguments (a method's `self`, a
-- module passed in: {name: [class, id]}, to tell two instances of one class apart), and the
-- function a library wrapper being compiled wraps (`wraps`: a decorator's `func`).
CREATE TABLE IF NOT EXISTS call_stacks (
    run_id     INTEGER NOT NULL,
    compile_id TEXT NOT NULL,
    frames     TEXT NOT NULL DEFAULT '[]',
    objects    TEXT NOT NULL DEFAULT '{}',
    wraps      TEXT,
    PRIMARY KEY (run_id, compile_id)
);
-- A symbol Dynamo specialised to a constant (symbolic_shape_specialization): the sources it
-- stood for (L['x'].size()[0]), the value, torch's reason and the user line that did it.
CREATE TABLE IF NOT EXISTS shape_specializations (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,
    symbol     TEXT,
    sources    TEXT NOT NULL DEFAULT '[]',
    value      TEXT,
    reason     TEXT,
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT,
    user_stack TEXT NOT NULL DEFAULT '[]'

);
-- Where each unbacked symbol (u0, u5: a value read out of a tensor while tracing, or a size
-- made from one) was made: torch's create_unbacked_symbol record, its user line and the
-- fake-tensor op that made it (local_scalar_dense for .item()/int(t), slice_forward ...).
CREATE TABLE IF NOT EXISTS unbacked_symbols (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,
    symbol     TEXT NOT NULL,
    op         TEXT,
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT
);
-- schema 3: the exception that ended the program (capture's compdiag:program_exception
-- record), whether it came through compiled code or not.
CREATE TABLE IF NOT EXISTS program_exceptions (
    run_id      INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    compile_id  TEXT,                   -- the compiled graph whose code it came through, if known
    exc_type    TEXT NOT NULL,
    message     TEXT NOT NULL,          -- str(exc), every line
    frames      TEXT NOT NULL DEFAULT '[]',  -- JSON [{filename, lineno, name, line}], outermost first
    compiled    TEXT,                   -- the compiled-code marker it passed through (NULL: none)
    stage       TEXT,                   -- the compile stage a compile-time exception escaped from
    handling    TEXT,                   -- JSON {exc_type, message, frames, compiled}: the exception
                                        -- the program was handling when it raised this one
    PRIMARY KEY (run_id, seq)
);
-- How the program ended when it did not end well (issue 29): os._exit's call (the child), and
-- the exit status or signal with what a native crash left (the parent: faulthandler's Python
-- stack, the end of stderr where the C++ runtime or torch wrote the reason).
CREATE TABLE IF NOT EXISTS program_ends (
    run_id         INTEGER NOT NULL,
    seq            INTEGER NOT NULL,
    how            TEXT NOT NULL,       -- os._exit | exit | signal
    exit_code      INTEGER,             -- the status; 128+N when signal N killed it
    signal         INTEGER,             -- the signal that killed it (NULL: it exited)
    frames         TEXT NOT NULL DEFAULT '[]',  -- JSON [{filename, lineno, name, line}], outermost first
    fatal_error    TEXT,                -- faulthandler's 'Fatal Python error: ...'
    native_message TEXT,                -- the C++ runtime's or torch's last words on stderr
    stderr_tail    TEXT,                -- the end of the program's stderr
    PRIMARY KEY (run_id, seq)
);
-- CUDA-graph coverage (issue 17): each recording cudagraph_trees made (one per distinct set
-- of input sizes), how the scheduler partitioned a graph and which ops split it.
CREATE TABLE IF NOT EXISTS cudagraph_recordings (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    function   TEXT,
    graph_id   INTEGER,
    sizes      TEXT NOT NULL DEFAULT '[]',   -- the tensor inputs' sizes
    symints    TEXT NOT NULL DEFAULT '[]'    -- the int inputs (dynamic sizes)
);
CREATE TABLE IF NOT EXISTS cudagraph_partitions (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id            INTEGER NOT NULL,
    compile_id        TEXT,
    source            TEXT,       -- scheduler (the log) | output_code (a cache hit's wrapper)
    partitions        INTEGER,
    cudagraphable     INTEGER,
    non_cudagraphable INTEGER
);
CREATE TABLE IF NOT EXISTS cudagraph_splits (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    node       TEXT,
    reason     TEXT,
    fx         TEXT
);
-- cudagraph_trees' own count of what it recorded for a function (issue 29 §6): a tree recorded
-- for a new int key ("Recording cudagraph tree for symint key 512"; key '' without symints),
-- and its warning that it has observed N distinct sizes (key NULL, observed N); `call` is the
-- user line that called the compiled function then (the call that brought the sizes).
CREATE TABLE IF NOT EXISTS cudagraph_trees (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    key        TEXT,
    observed   INTEGER,
    call       TEXT
);
-- cudagraph_trees re-recording a function for a reason other than a new size (issue 29 §6):
-- a static input's address or a managed input changed ("Re-recording function=partition_0,
-- reason=static input data pointer changed"); `input` is the graph input torch names, `call`
-- the user line that called the compiled function then, `frames` the input's stack trace
-- torch names (its first use in the user's code).
CREATE TABLE IF NOT EXISTS cudagraph_rerecords (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    function   TEXT,
    reason     TEXT,
    input      TEXT,
    call       TEXT,
    frames     TEXT
);
-- Python warnings raised while the program ran (torch's TF32 notice among them).
CREATE TABLE IF NOT EXISTS torch_warnings (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    category   TEXT,
    message    TEXT,
    filename   TEXT,
    lineno     INTEGER,
    call       TEXT      -- JSON {filename, lineno, name, line}: the user's call then (issue 29)
);
-- A library mm/conv whose output a separate Triton pointwise kernel reads (output code).
CREATE TABLE IF NOT EXISTS epilogue_misses (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    op         TEXT,
    buffer     TEXT,
    kernel     TEXT
);
-- store 3: cache lookups' key components, where compile time went, guards per source
-- (derived from records at ingest; re-derived by `compdiag reindex`).
-- One row per component of a cache key (torch's '[hash] name: value' details).
CREATE TABLE IF NOT EXISTS cache_key_components (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    cache      TEXT NOT NULL,
    seq        INTEGER NOT NULL,       -- the cache_events row's
    name       TEXT NOT NULL,          -- gm, example_inputs[0], inductor_config[fallback_random]
    hash       TEXT NOT NULL,
    value      TEXT                    -- torch's text of it (cut at 20,000 characters)
);
CREATE INDEX IF NOT EXISTS cache_key_components_run ON cache_key_components(run_id, seq);
-- A lookup's key components in one row (issue 34, import speed): [[name, hash, value], ...]
-- in torch's order, as JSON, kept in `blobs` (store/blobs.py: the next lookup's list is a
-- delta of the first). Written instead of cache_key_components' row per component (300 a
-- lookup, a quarter of an import's CPU); that table is still read in stores written before.
CREATE TABLE IF NOT EXISTS cache_keys (
    run_id     INTEGER NOT NULL,
    seq        INTEGER NOT NULL,       -- the cache_events row's
    components TEXT,                   -- NULL where components_blob holds it
    components_blob
);
CREATE INDEX IF NOT EXISTS cache_keys_run ON cache_keys(run_id, seq);
-- A miss is explained against earlier runs' lookups of the same cache.
CREATE INDEX IF NOT EXISTS cache_events_cache_run ON cache_events(cache, run_id);
-- Exclusive wall time per compile stage, from the chromium events (ingest/timeline.py); the
-- stage 'unaccounted' is what no named region covers; the rows of a compile add up to its
-- wall clock.
CREATE TABLE IF NOT EXISTS compile_stages (
    run_id     INTEGER NOT NULL,
    compile_id TEXT NOT NULL,
    stage      TEXT NOT NULL,
    seconds    REAL NOT NULL,
    PRIMARY KEY (run_id, compile_id, stage)
);
-- The closed chromium regions and instants of each compile (the Perfetto export's events).
CREATE TABLE IF NOT EXISTS compile_events (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,       -- the closing record's
    name       TEXT NOT NULL,
    cat        TEXT,
    start_us   REAL NOT NULL,          -- torch's timestamp (microseconds, its clock)
    dur_us     REAL,                   -- NULL for an instant
    depth      INTEGER NOT NULL,
    stage      TEXT,
    args       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS compile_events_run ON compile_events(run_id, compile_id);
-- Leaf guards per source of each compiled entry (dynamo_cpp_guards_str).
CREATE TABLE IF NOT EXISTS guard_sources (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,       -- the record's: a compile's last guard tree counts
    source     TEXT NOT NULL,
    guards     INTEGER NOT NULL
);
-- DDP under torch.compile (issue 31): each DistributedDataParallel the program built (capture
-- wraps its __init__: the user's line, the bucket cap, whether the module was compiled
-- already); DDPOptimizer's cap and buckets for a compile (as it logs them); and each
-- subgraph it split a compile into (the optimize_ddp_split_child records: parameters, ops,
-- the user lines of its first op and of the op at the cut that ends it).
CREATE TABLE IF NOT EXISTS ddp_wraps (
    run_id        INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    via           TEXT,                 -- DDP (the DDP(...) call) or torch.compile (of a DDP)
    module        TEXT,                 -- the wrapped module's class (OptimizedModule: compiled)
    compiled      INTEGER NOT NULL DEFAULT 0,  -- the module was torch.compile'd before DDP
    filename      TEXT,
    lineno        INTEGER,
    line          TEXT,
    bucket_cap_mb REAL,
    params        INTEGER,
    param_bytes   INTEGER,
    settings      TEXT NOT NULL DEFAULT '{}'   -- find_unused_parameters, static_graph, ...
);
CREATE TABLE IF NOT EXISTS ddp_buckets (
    run_id      INTEGER NOT NULL,
    compile_id  TEXT,
    seq         INTEGER NOT NULL,
    cap_bytes   INTEGER,
    buckets     INTEGER,
    sizes       TEXT NOT NULL DEFAULT '[]',  -- each bucket's parameter bytes, in graph order
    extended    INTEGER NOT NULL DEFAULT 0   -- torch grew a bucket past the cap (its warning)
);
CREATE TABLE IF NOT EXISTS ddp_splits (
    run_id         INTEGER NOT NULL,
    compile_id     TEXT,
    seq            INTEGER NOT NULL,
    idx            INTEGER NOT NULL,        -- submod_N, in graph order
    name           TEXT,
    param_names    TEXT NOT NULL DEFAULT '[]',
    param_bytes    INTEGER NOT NULL DEFAULT 0,
    ops            INTEGER NOT NULL DEFAULT 0,
    first_filename TEXT,
    first_lineno   INTEGER,
    first_line     TEXT,
    last_filename  TEXT,                    -- the op at the cut that ends this subgraph
    last_lineno    INTEGER,
    last_line      TEXT,
    last_op        TEXT,
    number_outputs TEXT NOT NULL DEFAULT '[]' -- Python numbers it returns: [{name, filename,
                                             -- lineno, line}] (ingest/ddp.split_child)
);
-- Compiled autograd's graphs (compiled_autograd_graph records), one per cache miss: the
-- autograd nodes it runs, its inputs and the sizes it reads as dynamic; Dynamo compiles
-- graph N under compile ids `!N/...`.
CREATE TABLE IF NOT EXISTS compiled_autograd_graphs (
    run_id        INTEGER NOT NULL,
    ca_id         INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    nodes         TEXT NOT NULL DEFAULT '[]',
    inputs        INTEGER,
    dynamic_sizes INTEGER
);
-- Collectives traced into a compiled graph, in graph order, with the user's line that issued
-- each (capture reads the Dynamo graph's stack traces: the post-grad graph keeps only torch's
-- own _functional_collectives.py line).
CREATE TABLE IF NOT EXISTS collective_nodes (
    run_id     INTEGER NOT NULL,
    compile_id TEXT,
    seq        INTEGER NOT NULL,
    idx        INTEGER NOT NULL,
    node       TEXT,
    target     TEXT,
    meta       TEXT,                 -- dtype and shape of its result (f32[8, 16])
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT
);
-- torch._dynamo.reset() between compiles (torch counts compile ids from 0/0 again): the
-- generation of ids after it (formats/compile_id.py) and the user line that called it (NULL
-- when an imported log only showed a compile id repeating).
CREATE TABLE IF NOT EXISTS dynamo_resets (
    run_id     INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    filename   TEXT,
    lineno     INTEGER,
    line       TEXT
);
-- Large texts of records and compiles, once each, by content (store/blobs.py): a row keeps
-- the hash in its *_blob column. codec: 0 UTF-8, 1 zlib, 2 deflate with store/zdict.py's
-- dictionary, 3 deflate with the text of the blob `base` as dictionary (a delta), 4 a delta
-- in pieces against a base longer than deflate's window, 5 zstd, 6 zstd with the text of
-- the blob `base` as its dictionary (what is written now: 2, 5, 6).
CREATE TABLE IF NOT EXISTS blobs (
    id         INTEGER PRIMARY KEY,
    hash       TEXT NOT NULL UNIQUE,
    size       INTEGER NOT NULL,       -- the text's UTF-8 bytes
    codec      INTEGER NOT NULL,
    data       BLOB NOT NULL,
    base       TEXT                    -- codec 3, 4: the blob whose text is the dictionary
);
-- The text of a user file a stored fact of the run names (frames, stack traces, compile call
-- sites; store 4), read when the run was captured or imported (ingest/sources.py): analyses
-- read the user's lines from here. `text` goes to blobs (store/blobs.py): a file is kept once
-- per content, however many runs name it; `text_blob` holds its hash. WITHOUT ROWID: one
-- b-tree, not a table and its key's index (a page each in every store).
CREATE TABLE IF NOT EXISTS sources (
    run_id     INTEGER NOT NULL,
    path       TEXT NOT NULL,
    text       TEXT,
    text_blob  TEXT,
    PRIMARY KEY (run_id, path)
) WITHOUT ROWID;

-- Inputs of a compile that share one storage while its graph mutates one of them: AOTAutograd
-- then rebuilds them from a synthetic base (its synthetic_base_wrapper artifact), where torch
-- has open bugs (pytorch#198095). One row per input of such a group, from Dynamo's
-- describe_tensor / describe_source records (ingest/aliased_inputs.py).
CREATE TABLE IF NOT EXISTS aliased_inputs (
    run_id          INTEGER NOT NULL,
    compile_id      TEXT,
    storage         INTEGER,                    -- Dynamo's describer id of the shared storage
    source          TEXT,                       -- L['hist'], as Dynamo names the input
    is_view         INTEGER NOT NULL DEFAULT 0,
    storage_offset  INTEGER,
    size            TEXT                        -- JSON list
);
"""

DERIVED_TABLES = (
    "warnings", "records", "compiles", "graph_breaks", "recompiles", "failures", "kernels",
    "fusion", "cudagraphs", "autotune", "cache_events", "accuracy", "tensors",
    "perf_graphs", "perf_runs", "perf_reports", "perf_calls",
    "recompile_events", "compile_stacks", "guard_values", "graph_nodes", "dynamo_nodes",
    "perf_hints", "injected_bugs", "fallback_calls", "sched_nodes",
    "cudagraph_recordings", "cudagraph_partitions", "cudagraph_splits", "cudagraph_trees",
    "cudagraph_rerecords", "torch_warnings", "epilogue_misses", "program_exceptions", "call_stacks", "shape_specializations",
    "unbacked_symbols", "cache_key_components", "cache_keys", "compile_stages", "compile_events", "guard_sources",
    "ddp_wraps", "ddp_buckets", "ddp_splits", "collective_nodes", "compiled_autograd_graphs",
    "dynamo_resets", "program_ends", "sources", "aliased_inputs",
)

# What `compdiag reindex` rebuilds from each run's raw records: every table derived from
# records alone (graph_breaks gained columns in schema 2). The others hold what only live
# capture saw (accuracy, tensors, timings, scheduler nodes) and are kept as they are.
REINDEXED_TABLES = ("compiles", "graph_breaks", "recompile_events", "compile_stacks",
                    "guard_values", "graph_nodes", "dynamo_nodes", "perf_hints", "injected_bugs",
                    "fallback_calls",
                    "cudagraph_recordings", "cudagraph_partitions", "cudagraph_splits",
                    "cudagraph_trees", "cudagraph_rerecords", "torch_warnings", "epilogue_misses",
                    "program_exceptions",
                    "call_stacks", "shape_specializations", "unbacked_symbols",
                    "cache_events", "cache_key_components", "cache_keys", "compile_stages",
                    "compile_events",
                    "guard_sources", "dynamo_resets", "ddp_wraps", "ddp_buckets", "ddp_splits",
                    "collective_nodes", "compiled_autograd_graphs", "program_ends",
                    "aliased_inputs")
# Facts ingest derives from the text of rows reindex does not rebuild (they also hold what
# only live capture saw): reindex recomputes these columns from each row's own text.
BACKFILLED_COLUMNS = {
    "failures": ("gb_code", "gb_explanation", "recompile_limit", "constraint_sources",
                 "constraint_frames", "torch_frames", "op", "fake_op", "origin_exc",
                 "origin", "submodule", "raise_site", "failed_guards"),
    "compiles": ("automatic_dynamic", "guard_count", "assume_static"),
    "cudagraphs": ("head", "frames", "ops"),
}
# Of BACKFILLED_COLUMNS, those capture may know better than the row's text: reindex fills
# them from the text only where they are empty (capture's record of a fake-tensor run's own
# exception, capture/exception_origin.py, is kept).
BACKFILLED_WHEN_EMPTY = {"failures": ("fake_op", "origin_exc", "origin")}
# Columns later layouts added to older tables (ALTER TABLE on upgrade and on open for writing).
ADDED_COLUMNS = {
    # schema 3: the ranks of a torchrun job.
    "runs": ("rank INTEGER", "world_size INTEGER", "local_rank INTEGER", "job TEXT",
             # issue 34: capture's own time in the program (capture/self_time.py):
             # compdiag's code (CPU), torch building trace records for it, the program's CPU
             "capture_cpu_s REAL", "capture_trace_s REAL", "cpu_s REAL"),
    # store 3: a compile's generation (torch._dynamo.reset() restarts torch's ids) and its
    # compiled-autograd id, parts of its CompileId; `compdiag reindex` fills them.
    "compiles": ("generation INTEGER NOT NULL DEFAULT 0", "compiled_autograd INTEGER",
                 # facts of compilation_metrics, stored at ingest (BACKFILLED_COLUMNS)
                 "automatic_dynamic INTEGER", "guard_count INTEGER",
                 "metrics_blob TEXT",  # issue 34: store/blobs.py
                 "assume_static INTEGER"),  # issue 29 §2: dynamic=True (BACKFILLED_COLUMNS)
    # issue 29 §1: the user's part of a node's stack (capture/node_stacks.py)
    "graph_nodes": ("meta TEXT", "stack TEXT"),
    # issue 29 §2: the exception an `except` block was handling when the program raised or
    # exited (capture/failures.handled_exception)
    "program_exceptions": ("handling TEXT",),
    # issue 34: a kernel's source, FX nodes and user lines in `blobs` (store/blobs.py)
    "kernels": ("source_blob TEXT", "fx_nodes_blob TEXT", "user_lines_blob TEXT"),
    "sched_nodes": ("frames_blob TEXT",),  # issue 34: store/blobs.py
    # issue 29 §1: the Python numbers a DDP piece hands to the next (ingest/ddp.split_child)
    "ddp_splits": ("number_outputs TEXT NOT NULL DEFAULT '[]'",),
    # issue 29 §1: the function a library wrapper being compiled wraps (capture/call_sites.py)
    "call_stacks": ("wraps TEXT",),
    # issue 29 §1: torch's compiler function that specialised the symbol (ingest/specializer)
    "shape_specializations": ("torch_frame TEXT",),
    # issue 29 §1: the changed input's stack trace torch names in a re-record line
    "cudagraph_rerecords": ("frames TEXT",),
    "compile_stacks": ("frames_blob TEXT",),  # issue 34: store/blobs.py
    "graph_breaks": ("explanation TEXT", "debug_context TEXT", "gb_type_inner TEXT",
                     "user_stack TEXT NOT NULL DEFAULT '[]'",
                     "frame_skipped INTEGER NOT NULL DEFAULT 0",
                     "torch_message TEXT", "lib_frame TEXT",
                     # issue 29: what torch could not handle (ingest/parse_dynamo.root_cause)
                     "root_cause TEXT", "root_value TEXT",
                     # issue 29 §2: why Dynamo skipped the whole frame (torch's chained break)
                     "skip_why TEXT",
                     # issue 29 §1: the higher-order operator it happened inside
                     # (capture/break_hop.py)
                     "hop TEXT"),
    # schema 3: torch's message, whole (the `message` column is its one-line summary); the
    # facts of its text, stored at ingest (BACKFILLED_COLUMNS)
    "failures": ("torch_message TEXT", "gb_code TEXT", "gb_explanation TEXT",
                 "recompile_limit INTEGER", "constraint_sources TEXT",
                 "constraint_frames TEXT",
                 "torch_frames TEXT",  # issue 29 §1: "Stack trace: File ..." frames
                 "op TEXT",  # issue 29 §1: the op torch names (BACKFILLED_COLUMNS)
                 # issue 29: a fake-tensor run's exception and who raised it
                 "fake_op TEXT", "origin_exc TEXT", "origin TEXT",
                 "submodule TEXT",  # issue 29 §1: the DDP piece that raised
                 # issue 29: the frame that raised it and its caller (an error with no words
                 # is named by the function that raised it)
                 "raise_site TEXT",
                 # issue 29 §2: the guards that failed when Dynamo refused to recompile
                 # (error_on_recompile, fail_on_recompile), each classified as a recompile's
                 "failed_guards TEXT"),
    "cudagraphs": ("head TEXT", "frames TEXT", "ops TEXT"),
    # issue 29 §6: the user line that called the compiled function when it recorded
    "cudagraph_recordings": ("call TEXT",),
    # issue 29 §6: the user line that called the compiled function when torch warned
    "torch_warnings": ("call TEXT",),
    # issue 29 §3: the generated kernel whose own check ended the program natively, and the
    # user lines of its ops (ingest/own_records.py)
    "program_ends": ("kernel TEXT", "kernel_compile_id TEXT", "kernel_frames TEXT"),
    # store 3: a cache lookup's result, reason and timings
    "cache_events": ("result TEXT", "reason TEXT", "detail TEXT", "seq INTEGER",
                     "time_saved_s REAL",
                     "node TEXT"),  # issue 29 §1: the node a bypass refused
    # issue 34: a large payload or envelope in `blobs` (store/blobs.py)
    "records": ("payload_blob TEXT", "metadata_blob TEXT",
                # issue 34: 1 where the envelope's has_payload (the payload's md5) is left
                # out of `metadata` and put back on read (store/blobs.py)
                "payload_md5 INTEGER"),
}

# Tables added after stores were already in use: created (IF NOT EXISTS) whenever a store is
# opened for writing, so an older store gains them without a version bump.
ADDITIVE_DDL = DDL[DDL.index("-- compdiag perf"):]


PAGE_SIZE = 512  # a new store's (issue 34); an existing one keeps its own
BUSY_TIMEOUT_S = 30.0  # how long a connection waits for another process' lock


def connect(path: Path | str, *, create: bool, upgrade: bool = False) -> sqlite3.Connection:
    """Open a store, creating it when asked; refuse a newer or foreign file in one line, and an
    older one (StoreNeedsReindex) unless `upgrade` (ingest/reindex.py, which then migrates it)."""
    path = Path(path)
    if not create and not path.exists():
        raise StoreError(f"no store at {path} (run `compdiag run SCRIPT` or pass --store)")
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create a store at {path} ({exc.strerror or exc})") from None
    try:
        _refuse_foreign(path)
        if create:
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                   check_same_thread=False)
            # Look before switching the file to WAL: somebody else's database stays as it is.
            if _foreign(conn):
                conn.close()
                raise StoreError(f"{path} is an SQLite file but not a compdiag store")
            if not _has_tables(conn):
                # A new store: small pages (every table and index takes one page at least;
                # at 4 KiB they were half of a small run's store). Set before WAL mode.
                conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            _set_wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
        else:
            conn = _open_read_only(path)
        # Several processes may create the same new store at once (parallel `compdiag run`s):
        # check and create under one write lock, so each sees no store or a whole one.
        if create:
            conn.execute("BEGIN IMMEDIATE")
        try:
            version = _read_version(conn)
            if version is None:
                # Never add our tables to somebody else's SQLite database.
                if _has_tables(conn):
                    raise StoreError(f"{path} is an SQLite file but not a compdiag store")
                if not create:
                    raise StoreError(f"{path} is an empty store")
                _execute_script(conn, DDL)
                _add_columns(conn)
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                             (str(STORE_VERSION),))
            elif version < STORE_VERSION and not upgrade:
                raise StoreNeedsReindex(path, version)
            elif create and version <= STORE_VERSION:
                _execute_script(conn, ADDITIVE_DDL)
                _add_columns(conn)
            if create:
                conn.execute("COMMIT")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        if version is not None and version > STORE_VERSION:
            raise StoreError(
                f"{path} was written by a newer compdiag (store schema {version}, this one reads "
                f"up to {STORE_VERSION}); upgrade compdiag"
            )
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a readable compdiag store ({exc})") from None
    blobs.register(conn)
    conn.row_factory = sqlite3.Row
    return conn


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A reader's connection, which changes nothing and creates nothing beside the store (a
    CI artifact, a colleague's store, a folder the reader cannot write: issue 30).

    - No `-wal` file: no connection has the store open (the last one checkpointed and removed
      it), so the main file holds every committed page and `immutable=1` reads it exactly,
      without locks and without the `-wal`/`-shm` files that even `mode=ro` creates for a WAL
      database. What a writer commits after this connection opened is not seen by it (the
      TUI shows the store as it was when it started).
    - A `-wal` file: a writer is at work, or one was killed; its pages are only there, so
      `immutable` would miss them. `mode=ro` reads them through the `-shm` beside it (read-only
      files in a read-only folder work: SQLite >= 3.22).
    - A `-wal` without its `-shm` in a folder the reader cannot write (a copied artifact):
      SQLite cannot build the wal index there, so the store and its wal are copied into a
      private temporary folder, removed at exit, and read from there."""
    opts: dict[str, Any] = {"timeout": BUSY_TIMEOUT_S, "isolation_level": None,
                            "check_same_thread": False, "uri": True}
    uri = path.resolve().as_uri()
    wal = Path(f"{path}-wal")
    if not wal.exists():
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", **opts)
    try:
        conn = sqlite3.connect(f"{uri}?mode=ro", **opts)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        if os.access(path.parent, os.W_OK) or Path(f"{path}-shm").exists():
            raise
    import atexit
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="compdiag-ro-"))
    atexit.register(shutil.rmtree, tmp, True)
    shutil.copyfile(path, tmp / path.name)
    shutil.copyfile(wal, tmp / wal.name)
    return sqlite3.connect(f"{(tmp / path.name).as_uri()}?mode=ro", **opts)


def _refuse_foreign(path: Path) -> None:
    """Somebody else's SQLite file is refused before a real connection is made: opening a WAL
    database, even read-only, creates its -wal and -shm files beside it. With no -wal file
    there, the main file holds every committed page, so an `immutable` look (which creates
    nothing) is exact; with one, the file is in use and the ordinary checks decide."""
    if not path.is_file() or path.stat().st_size == 0 or \
            Path(f"{path}-wal").exists():
        return
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return
    try:
        if _foreign(conn):
            raise StoreError(f"{path} is an SQLite file but not a compdiag store")
    except sqlite3.DatabaseError:
        return  # not SQLite at all: the ordinary open says so in one line
    finally:
        conn.close()


def _foreign(conn: sqlite3.Connection) -> bool:
    """Tables but no schema version: somebody else's database. The tables are looked at
    first: outside a transaction each statement reads its own snapshot, and another process
    creating the same store commits its tables and its version together, so a version read
    after the tables were seen is there too. Read the other way round, a creation committed
    between the two reads looked foreign (CI: test_concurrent_creation_of_one_new_store)."""
    return _has_tables(conn) and _read_version(conn) is None


def _has_tables(conn: sqlite3.Connection) -> bool:
    return bool(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])


def _set_wal(conn: sqlite3.Connection) -> None:
    """PRAGMA journal_mode=WAL, retried while the file is locked. On a new file still in
    rollback mode, two processes switching it at once can deadlock on the lock upgrade, and
    SQLite then answers 'database is locked' at once, without its busy handler (seen once in
    a CI run of the concurrent-creation test); wait as the busy timeout would have."""
    import time

    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _execute_script(conn: sqlite3.Connection, script: str) -> None:
    """executescript() would COMMIT the caller's transaction first; run statement by statement
    (comments dropped first: they may hold semicolons; the DDL has no '--' inside literals).
    Each statement's white space is one space: SQLite keeps its text in the file (a third
    of it was alignment; its literals hold none)."""
    text = "\n".join(line.split("--", 1)[0] for line in script.splitlines())
    for statement in text.split(";"):
        if statement.strip():
            conn.execute(" ".join(statement.split()))


def _read_version(conn: sqlite3.Connection) -> int | None:
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    if not has_meta:
        return None
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        return None
    try:
        return int(row[0])
    except ValueError:
        raise StoreError(f"unreadable store schema version {row[0]!r}") from None


def migrate(conn: sqlite3.Connection) -> int:
    """Bring an older store's layout to STORE_VERSION inside the caller's transaction: new
    tables, new columns. Returns the version it had. The facts themselves are re-derived by
    ingest/reindex.py, which owns the parsing."""
    version = _read_version(conn) or STORE_VERSION
    if version >= STORE_VERSION:
        return version
    _execute_script(conn, DDL)
    _add_columns(conn)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                 (str(STORE_VERSION),))
    return version


def _add_columns(conn: sqlite3.Connection) -> None:
    """ADDED_COLUMNS a store lacks (an older layout, or a schema-3 store written before a
    column of this layout existed)."""
    for table, columns in ADDED_COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if not have:
            continue  # a table this store does not have yet: migrate() creates it whole
        for col in columns:
            if col.split()[0] not in have:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {col}")
