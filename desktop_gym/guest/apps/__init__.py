"""The guest's machinery for apps: launching them (``launcher``), running their APIs (``registry``,
``tool_schema``) and LibreOffice's shared parts (UNO, profiles, the kept office).

The apps themselves are folders under :mod:`desktop_gym.apps`. Importing this package imports none of
its modules: the host reads the API registry without the launcher's X libraries.
"""
