"""A Slurm cluster of virtual nodes on this machine, for the tests that run
jobs across nodes (../shared/notes/multinode-probe.md): one slurmctld and one
slurmd per node, all on 127.0.0.1, each on a free port, every file under a
private directory; nothing under /etc changes. Commands reach it through
SLURM_CONF (`cluster.env`). Needs root (the daemons run as root with no
authentication) and the Debian packages slurmctld, slurmd and slurm-client,
which scripts/deps.sh installs.

    with SlurmCluster(nodes=4) as cluster:
        subprocess.run(["srun", "--mpi=pmix", "-N", "2", "-n", "4", "./app"], env=cluster.env)

Starting takes well under a second; stopping about two (every daemon is sent
TERM at once, then waited for).
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time


class ClusterError(Exception):
    pass


def free_ports(count):
    """`count` TCP ports free on 127.0.0.1 now."""
    sockets, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in sockets:
            s.close()
    return ports


class SlurmCluster:
    def __init__(self, nodes=4, cpus=2, start_timeout=30):
        self.nodes = [f"n{i}" for i in range(1, nodes + 1)]
        self.cpus = cpus
        self.start_timeout = start_timeout
        self.dir = None
        self.env = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        if os.geteuid() != 0:
            raise ClusterError("the Slurm test cluster runs its daemons as root; run the tests as root")
        for tool in ("slurmctld", "slurmd", "srun", "sinfo"):
            if shutil.which(tool) is None:
                raise ClusterError(f"{tool} is not installed (scripts/deps.sh installs Slurm)")
        self.dir = tempfile.mkdtemp(prefix="mpf-slurm-")
        for sub in ("state", "run", "log"):
            os.makedirs(os.path.join(self.dir, sub))
        for node in self.nodes:
            os.makedirs(os.path.join(self.dir, "spool", node))
            # Per node: the PMIx plugin makes its directories here, and the
            # virtual nodes would collide in one /tmp.
            os.makedirs(os.path.join(self.dir, "tmp", node))
        # Each task's MPF_RUN_DIR is its node's own, as /tmp is on a real
        # cluster: a job's node parts are then found only on their node, and
        # mpfinspect must reach them through srun.
        self.task_prolog = os.path.join(self.dir, "task-prolog.sh")
        with open(self.task_prolog, "w") as f:
            f.write(f'#!/bin/sh\necho "export MPF_RUN_DIR={self.dir}/tmp/$SLURMD_NODENAME/mpf-run"\n')
        os.chmod(self.task_prolog, 0o755)
        ports = free_ports(len(self.nodes) + 1)
        host = socket.gethostname()
        d = self.dir
        conf = f"""ClusterName=mpftest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ports[0]}
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool/%n
SlurmdPidFile={d}/run/slurmd-%n.pid
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd-%n.log
TmpFS={d}/tmp/%n
TaskProlog={self.task_prolog}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=2
"""
        for node, port in zip(self.nodes, ports[1:]):
            conf += (f"NodeName={node} NodeHostname={host} NodeAddr=127.0.0.1 Port={port} "
                     f"CPUs={self.cpus} RealMemory=1000\n")
        conf += f"PartitionName=debug Nodes={','.join(self.nodes)} Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4\n"
        self.conf = os.path.join(d, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        subprocess.run(["slurmctld", "-i"], env=self.env, check=True, timeout=30)
        for node in self.nodes:
            subprocess.run(["slurmd", "-N", node], env=self.env, check=True, timeout=30)
        deadline = time.monotonic() + self.start_timeout
        while True:
            idle = subprocess.run(["sinfo", "-h", "-t", "idle", "-o", "%D"], env=self.env, capture_output=True,
                                  text=True, timeout=30).stdout.strip()
            if idle == str(len(self.nodes)):
                return
            if time.monotonic() > deadline:
                logs = self.logs()
                self.stop()
                raise ClusterError(f"the Slurm test cluster did not come up in {self.start_timeout} s "
                                   f"(idle nodes: {idle or 0}); its logs:\n{logs}")
            time.sleep(0.1)

    def run_dir(self, node):
        """Where the ranks on `node` register their node's part of a job."""
        return os.path.join(self.dir, "tmp", node, "mpf-run")

    def logs(self):
        out = []
        log_dir = os.path.join(self.dir, "log")
        for name in sorted(os.listdir(log_dir)):
            with open(os.path.join(log_dir, name), errors="replace") as f:
                out.append(f"--- {name}\n" + "".join(f.readlines()[-20:]))
        return "\n".join(out)

    def pids(self):
        found = []
        run = os.path.join(self.dir, "run")
        for name in os.listdir(run):
            try:
                with open(os.path.join(run, name)) as f:
                    found.append(int(f.read().strip()))
            except (OSError, ValueError):
                pass
        return found

    def stop(self):
        if self.dir is None:
            return
        pids = self.pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 20
        for pid in pids:
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
            else:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None
