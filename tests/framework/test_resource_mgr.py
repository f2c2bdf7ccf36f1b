"""ResourceSlot: a stateful kernel's first run, shared by every plan of a session, makes its resource once."""

import threading
import time

from tensorweave.framework.resource_mgr import ResourceMgr, ResourceSlot, resource_name


def test_concurrent_first_runs_make_one_resource():
    slot, mgr, made = ResourceSlot(), ResourceMgr(), []
    start = threading.Barrier(4)

    def find_or_make():
        time.sleep(0.01)  # a slow first run: the others arrive meanwhile
        return mgr.lookup_or_create("", resource_name("", "q"), lambda: made.append(object()) or made[-1])

    def first_run(out):
        start.wait()
        out.append(slot.get(find_or_make))

    got: list = []
    threads = [threading.Thread(target=first_run, args=(got,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and all(r is made[0] for r in got) and slot.get(find_or_make) is made[0]
