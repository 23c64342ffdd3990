"""Task mining (``desktop-gym tasks synth``): proven tasks from programs of app API calls run on a real desktop.

``apps`` names what each app brings (a document model, its call table, a state verifier);
``programs`` draws programs and their sibling tasks; ``dry_run`` plays a candidate's oracle on a
desktop; ``synth`` filters and writes what it keeps; ``report`` and ``paraphrase`` are optional
extras. The shipped result is the mined suite (``tasks/mined_suite.py``, ``suites/mined/``).
"""
