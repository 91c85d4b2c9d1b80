"""Adapters to the tools users already run: experiment trackers (MLflow), IR toolkits
(ir_measures / PyTerrier) and dataset catalogues (ir_datasets). Each is an optional extra
(``pip install 'receval[mlflow]'``, ...); importing an adapter without its library raises
:class:`receval.errors.MissingDependencyError` naming the extra."""
