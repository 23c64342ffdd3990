"""EnvServer + RemoteEnv over real gRPC on the load-test backend: contract, limits, leases, errors."""

from __future__ import annotations

import os
import pickle
import stat
import threading
import time

import grpc
import pytest
from gymnasium.utils.env_checker import check_env

from desktop_gym.errors import EnvLostError, EnvServerError, UnknownTaskError
from desktop_gym.serve.client import EnvConnection, RemoteEnv
from desktop_gym.serve.loadtest import LoadTestEnv
from desktop_gym.serve.pool import CapacityError, DesktopPool
from desktop_gym.serve.protos import env_pb2 as pb
from desktop_gym.serve.server import EnvServer

from ..support.threads import run_in_threads

TASK = "starter.terminal_write_file"


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def thread_count() -> int:
    return threading.active_count()


def remote(server: EnvServer, **options) -> RemoteEnv:
    return RemoteEnv(TASK, server.address, server.token, **options)


def test_remote_env_passes_check_env(loadtest_server):
    env = remote(loadtest_server)
    check_env(env, skip_render_check=True)
    observation, info = env.reset(seed=4)
    assert env.observation_space.contains(observation)
    assert info["task_id"] == TASK and "~/reports_" in observation["instruction"]
    env.close()


def test_remote_env_matches_desktop_env_surface(loadtest_server):
    env = remote(loadtest_server, observation=["instruction", "screenshot"])
    env.reset(seed=0)
    assert list(env.observation_space.spaces) == ["instruction", "screenshot"]
    assert env.observation_space["screenshot"].shape == (90, 160, 3)
    assert "click" in env.describe() and env.describe("json")
    assert any(schema["function"]["name"] == "click" for schema in env.tool_schemas())
    env.close()


def test_remote_env_pickles_as_address_token_options_and_connects_lazily(loadtest_server):
    env = remote(loadtest_server, max_steps=3)
    env.reset(seed=1)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.env_id is None and clone._connection is None
    assert (clone.address, clone.token, clone.env_options) == (env.address, env.token, {"max_steps": 3})
    assert len(pickle.dumps(env)) < 1000
    clone.reset(seed=1)
    assert clone.env_id != env.env_id and len(loadtest_server.list_envs()) == 2
    env.close()
    clone.close()


def test_json_tool_call_and_malformed_text_keep_the_episode_going(loadtest_server):
    env = remote(loadtest_server)
    env.reset(seed=0)
    observation, _, terminated, truncated, info = env.step("click(")
    assert observation["last_action_error"] and not (terminated or truncated)
    call = {"type": "function", "function": {"name": "click", "arguments": '{"coordinates": [3, 4]}'}}
    observation, *_ = env.step(call)
    assert observation["last_action_error"] == ""
    with pytest.raises(TypeError, match="action"):
        env.step({1, 2})  # cannot travel (42 is the step's last_action_error: tests/serve/test_remote_parity.py)
    env.close()


def test_ten_megabyte_action_is_refused_and_the_episode_goes_on(loadtest_server):
    env = remote(loadtest_server)
    env.reset(seed=0)
    observation, _, _, _, info = env.step("x" * (10 * 1024 * 1024))
    assert "10485760 characters long; at most 65536" in observation["last_action_error"] and info["step"] == 1
    _, _, _, _, info = env.step("wait()")
    assert info["step"] == 2
    env.close()


def test_bad_options_and_unknown_tasks_name_the_field(loadtest_server):
    with pytest.raises(ValueError, match=r"options_json\.max_steps: expected integer"):
        remote(loadtest_server, max_steps="ten").reset()
    with pytest.raises(ValueError, match=r"options_json\.backend: unknown env option"):
        remote(loadtest_server, backend="local").reset()
    with pytest.raises(UnknownTaskError, match="no_such.task"):  # the type DesktopEnv raises
        RemoteEnv("no_such.task", loadtest_server.address, loadtest_server.token).reset()
    with pytest.raises(ValueError, match="screenshot_format"):
        remote(loadtest_server, screenshot_format="gif").reset()
    env = remote(loadtest_server)
    with pytest.raises(ValueError, match=r"options_json\.params: expected dict"):
        env.reset(options={"params": [1]})
    env.close()
    assert loadtest_server.list_envs() == []  # no refused create kept a desktop


def test_unknown_env_is_not_found(loadtest_server):
    # An earlier run's env is lost: tests/serve/test_remote_parity.py (ids carry their issuer's tag).
    connection = EnvConnection(loadtest_server.address, loadtest_server.token)
    with pytest.raises(LookupError, match="no env 'nope'"):
        connection.call("Step", pb.StepRequest(env_id="nope", action="wait()"), "nope")
    with pytest.raises(LookupError, match="no run of it issued that id"):
        connection.call("Step", pb.StepRequest(env_id="0000beef-1", action="wait()"), "0000beef-1")
    connection.close()


def test_wrong_token_is_refused(loadtest_server):
    connection = EnvConnection(loadtest_server.address, "wrong")
    with pytest.raises(EnvServerError, match="UNAUTHENTICATED"):
        connection.health()
    connection.close()


def test_non_loopback_bind_without_token_is_refused():
    with pytest.raises(ValueError, match="without a token"):
        EnvServer("0.0.0.0:0", token="", backend="loadtest")


def test_unix_socket_server_is_private(tmp_path):
    path = tmp_path / "env.sock"
    with EnvServer(f"unix:{path}", backend="loadtest", max_envs=1, warm=0) as server:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        env = RemoteEnv(TASK, server.address, server.token)
        env.reset(seed=0)
        env.close()


def test_capacity_is_refused_naming_the_limit(loadtest_server):
    envs = [remote(loadtest_server) for _ in range(4)]
    for env in envs:
        env.reset()
    with pytest.raises(EnvServerError, match="RESOURCE_EXHAUSTED.*all 4 desktops"):
        remote(loadtest_server).reset()
    envs[0].close()
    fifth = remote(loadtest_server)
    fifth.reset()  # a closed env's desktop is free again
    for env in [*envs[1:], fifth]:
        env.close()


def test_memory_admission_names_the_memory():
    pool = DesktopPool("loadtest", max_desktops=4, warm=0, memory_per_desktop_mb=300, memory_probe=lambda: 1100.0)
    from desktop_gym.serve import loadtest  # noqa: F401 - registers the backend

    with pytest.raises(CapacityError, match="only 1100 MiB of memory available"):
        pool.acquire()
    pool.close()


def test_vanished_client_is_reclaimed_within_the_ttl(loadtest_server, wait_until):
    env = remote(loadtest_server, heartbeat=False)
    env.reset(seed=0)
    started = time.monotonic()
    wait_until(lambda: not loadtest_server.list_envs(), timeout=6.0, what="the env to be reclaimed")
    assert time.monotonic() - started < 2.0 + 1.5  # ttl + one reaper tick + slack
    with pytest.raises(EnvLostError, match="reclaimed"):
        env.step("wait()")
    assert loadtest_server.status()["counters"]["reclaimed"] == 1
    assert loadtest_server.pool.counts()["in_use"] == 0


def test_heartbeat_keeps_a_quiet_env_alive(loadtest_server):
    env = remote(loadtest_server)
    env.reset(seed=0)
    deadline = time.monotonic() + 5.0  # 2.5 lease lifetimes without a real call
    while time.monotonic() < deadline:
        assert len(loadtest_server.list_envs()) == 1
        time.sleep(0.2)
    env.step("wait()")
    env.close()


class SlowEnv(LoadTestEnv):
    """A load-test env whose step takes 0.3 s and records when it ran."""

    intervals: list[tuple[int, float, float]] = []

    def step(self, action):
        start = time.monotonic()
        time.sleep(0.3)
        result = super().step(action)
        SlowEnv.intervals.append((id(self), start, time.monotonic()))
        return result


@pytest.fixture
def slow_server():
    SlowEnv.intervals = []
    server = EnvServer(backend="loadtest", max_envs=4, warm=0, env_factory=lambda t, b, o: SlowEnv(t, backend=b, **o))
    server.start()
    yield server
    if not server.draining:
        server.drain(grace=5)


def _overlap(a: tuple[int, float, float], b: tuple[int, float, float]) -> bool:
    return a[1] < b[2] and b[1] < a[2]


def test_steps_of_one_env_are_serialized_and_of_different_envs_parallel(slow_server):
    first, second = remote(slow_server), remote(slow_server)
    first.reset()
    second.reset()
    threads = [threading.Thread(target=env.step, args=("wait()",)) for env in (first, first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    same = [i for i in SlowEnv.intervals if i[0] == SlowEnv.intervals[0][0]]
    other = [i for i in SlowEnv.intervals if i[0] != SlowEnv.intervals[0][0]]
    by_env = {len(same), len(other)}
    assert by_env == {1, 2}
    pair = same if len(same) == 2 else other
    single = other if len(same) == 2 else same
    assert not _overlap(*pair), "two steps of one env ran at the same time"
    assert any(_overlap(single[0], interval) for interval in pair), "steps of different envs did not overlap"


def test_a_third_concurrent_call_on_one_env_is_refused(slow_server):
    env = remote(slow_server)
    env.reset()
    _, errors = run_in_threads(lambda: env.step("wait()"), copies=3, timeout=10)
    assert (
        len(errors) == 1
        and isinstance(errors[0], EnvServerError)
        and "RESOURCE_EXHAUSTED" in str(errors[0])
        and "one queued" in str(errors[0])
    )


def test_drain_finishes_in_flight_steps_and_refuses_new_envs(slow_server, wait_until):
    env = remote(slow_server)
    env.reset()
    results: list = []
    stepping = threading.Thread(target=lambda: results.append(env.step("wait()")))
    stepping.start()
    wait_until(lambda: slow_server.list_envs()[0]["state"] == "stepping", timeout=5, what="the step to start")
    drainer = threading.Thread(target=slow_server.drain, kwargs={"grace": 10})
    drainer.start()
    wait_until(lambda: slow_server.draining, timeout=5, what="the server to drain")
    with pytest.raises(EnvServerError, match="draining"):
        remote(slow_server).reset()
    stepping.join(timeout=10)
    drainer.join(timeout=30)
    assert len(results) == 1 and results[0][4]["step"] == 1  # the in-flight step finished
    assert slow_server.pool.counts() == {"ready": 0, "in_use": 0, "starting": 0, "max": 4}
    with pytest.raises(EnvLostError):
        env.step("wait()")  # the server is gone: its envs are lost


def test_thousand_malformed_requests_leak_nothing(loadtest_server):
    connection = EnvConnection(loadtest_server.address, loadtest_server.token)
    env = remote(loadtest_server)
    env.reset()
    connection.health()
    fds, threads, pool = open_fds(), thread_count(), loadtest_server.pool.counts()
    bad = [
        ("Step", pb.StepRequest(env_id="missing", action="wait()"), LookupError),
        ("Step", pb.StepRequest(env_id=env.env_id, action="{", action_is_json=True), ValueError),
        ("Step", pb.StepRequest(env_id=env.env_id, action="[1,", action_is_json=True), ValueError),
        ("CreateEnv", pb.CreateEnvRequest(task_id=TASK, options_json="[1]"), ValueError),
        ("CreateEnv", pb.CreateEnvRequest(task_id=TASK, options_json="{bad"), ValueError),
        ("Reset", pb.ResetRequest(env_id=env.env_id, options_json='{"seed": 1}'), ValueError),
        ("Thumbnail", pb.ThumbnailRequest(env_id=env.env_id, max_width=1), ValueError),
        ("Close", pb.EnvRef(env_id="x" * 10_000), LookupError),
    ]
    for index in range(1000):
        name, request, expected = bad[index % len(bad)]
        with pytest.raises(expected):
            connection.call(name, request, getattr(request, "env_id", ""))
    assert connection.health().serving
    assert env.step("wait()")[4]["step"] == 1
    assert loadtest_server.pool.counts() == pool
    assert open_fds() <= fds + 2 and thread_count() <= threads + 2
    env.close()
    connection.close()


def test_list_envs_stats_and_thumbnail_carry_what_a_dashboard_shows(loadtest_server):
    env = remote(loadtest_server)
    env.reset(seed=0)
    env.step("wait()")
    (summary,) = loadtest_server.list_envs()
    assert summary["task_id"] == TASK and summary["state"] == "idle" and summary["step"] == 1
    assert {"episode_return", "uptime_s", "last_error"} <= set(summary)
    stats = EnvConnection(loadtest_server.address, loadtest_server.token).stats()
    assert stats["counters"]["steps"] == 1 and stats["counters"]["resets"] == 1
    assert stats["node"]["mem_total_mb"] > 0 and "cpu_percent" in stats["node"] and stats["steps_per_s"] > 0
    assert stats["reset_latency_s"]["samples"] == 1
    data, width, height = loadtest_server.thumbnail(env.env_id, max_width=64)
    assert data[:2] == b"\xff\xd8" and width == 64 and height == 36
    env.close()


def test_episode_end_counts_success_per_task(loadtest_server):
    env = remote(loadtest_server, max_steps=1)
    env.reset(seed=0)
    *_, truncated, info = env.step("wait()")
    assert truncated and info["success"] is False
    assert loadtest_server.status()["success_per_task"][TASK] == {"episodes": 1, "successes": 0, "rate": 0.0}
    env.close()


def test_screenshot_formats_round_trip(loadtest_server):
    for fmt in ("raw", "png", "jpeg"):
        env = remote(loadtest_server, screenshot_format=fmt, observation=["screenshot"])
        observation, _ = env.reset()
        assert observation["screenshot"].shape == (90, 160, 3) and observation["screenshot"].max() <= 8
        env.close()


def test_grpc_status_codes_are_the_documented_ones(loadtest_server):
    channel = grpc.insecure_channel(loadtest_server.address)
    from desktop_gym.serve.protos import env_pb2_grpc

    stub = env_pb2_grpc.EnvServiceStub(channel)
    metadata = (("x-desktop-gym-token", loadtest_server.token),)
    with pytest.raises(grpc.RpcError) as caught:
        stub.Step(pb.StepRequest(env_id="nope"), metadata=metadata, timeout=5)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as caught:
        stub.CreateEnv(pb.CreateEnvRequest(task_id=TASK, options_json='{"observation": "all"}'), metadata=metadata)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "options_json.observation" in caught.value.details()
    channel.close()
