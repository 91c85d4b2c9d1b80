"""One local Spark session for the Spark engine tests (skipped without pyspark or Java)."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# the shared cases module (spark_cases.py) next to this file
if HERE not in sys.path:
    sys.path.insert(0, HERE)

# pyspark before 4.0 leaves the socket of a collection (rdd._load_from_socket: "closed when
# garbage-collected") to the garbage collector, whose ResourceWarning the suite's
# filterwarnings=error would turn into a failure of whichever test drops it; pyspark 4 closes it
SOCKET_LEFT_TO_GC = "ignore:unclosed <socket.socket:ResourceWarning"


def _pyspark_major() -> int | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version("pyspark").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    major = _pyspark_major()
    for item in items:
        if os.path.dirname(os.path.abspath(str(item.path))) != HERE:
            continue
        if item.get_closest_marker("spark") is None:  # every test here needs the marker
            raise pytest.UsageError(f"{item.nodeid}: a Spark test without the spark marker "
                                    "(pytestmark = pytest.mark.spark)")
        if major is not None and major < 4:
            item.add_marker(pytest.mark.filterwarnings(SOCKET_LEFT_TO_GC))


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory):
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'receval[spark]')")
    pytest.importorskip("pyarrow")
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        pytest.skip("no Java runtime (Spark 4 needs Java 17+)")
    # the Python workers must run this interpreter (where receval and pyarrow are installed)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]").appName("receval-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1g")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.local.dir", str(tmp_path_factory.mktemp("spark")))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
