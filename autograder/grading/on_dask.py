"""Grading beyond one machine: the students of a batch fanned out over a Dask ``distributed`` cluster.

``grade --dask ADDRESS`` (autograder/grading/grade.py) hands each student's
:func:`autograder.grading.grade.grade_one` to the cluster; the outcomes are recorded
where the batch was started, as they come back, and a lost worker is its
student's outcome ("could not be graded"), never the batch's end.
"""


def grade_on_dask(address, jobs, found, task, arguments, failed, record, report):
    """Fan the students out over a Dask ``distributed`` cluster: ``address`` of its scheduler, or "local".

    Each submission of ``found`` runs ``task(*arguments(submission))`` on a
    worker (``grade.grade_one``); an exception there, a lost worker included,
    becomes ``failed(submission, error)``, the batch's one error policy, which
    ``grade`` hands in, so that this module imports nothing of ``grade``.

    The workers must see the course folder and the submissions at the same
    paths (one machine, or a shared filesystem) and reach the gradebook (use
    PostgreSQL, RBD_GRADEBOOK_URL, when they are on several machines). The
    outcomes are recorded here, as they come back.
    """
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if address == "local":
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None)
        address = cluster.scheduler_address
    try:
        with Client(address) as client:
            report(f"grading on the Dask cluster at {address} ({len(client.scheduler_info()['workers'])} workers)")
            futures = {client.submit(task, *arguments(submission), pure=False): submission for submission in found}
            try:
                for future in as_completed(futures):
                    submission = futures[future]
                    try:
                        outcome = future.result()
                    except Exception as error:  # noqa: BLE001 (a lost worker is this student's outcome, not the batch's end)
                        outcome = failed(submission, error)
                    record(*outcome)
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    finally:
        if cluster is not None:
            cluster.close()
