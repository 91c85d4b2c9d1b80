"""One module a library: the checks of its ``compat=`` preset (see ``check_presets.py``)."""
