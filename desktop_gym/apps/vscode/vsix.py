"""A minimal VS Code extension package (.vsix) built from data, for tasks that install one offline.

A .vsix is a zip: ``extension.vsixmanifest`` (its identity), ``[Content_Types].xml`` and the
extension's folder with its ``package.json``. The one built here contributes nothing but settings
metadata (a color theme-free, code-free extension), which code-server installs with
``--install-extension <file>`` without any network. Standard library only.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from xml.sax.saxutils import escape

#: What a publisher or extension name may be (the marketplace's rule, lowercase here).
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
#: A plain semantic version.
VERSION_PATTERN = re.compile(r"^\d{1,4}\.\d{1,4}\.\d{1,4}$")

CONTENT_TYPES = """<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension=".json" ContentType="application/json"/><Default Extension=".vsixmanifest" ContentType="text/xml"/>
<Default Extension=".md" ContentType="text/markdown"/>
</Types>
"""


def vsix_bytes(publisher: str, name: str, version: str, display_name: str, description: str = "") -> bytes:
    """The .vsix of the extension ``publisher.name`` at ``version``.

    Raises:
        ValueError: a name or version that VS Code would refuse.
    """
    for what, value in (("publisher", publisher), ("name", name)):
        if not NAME_PATTERN.match(value):
            raise ValueError(f"{what} {value!r} must be lowercase letters, digits and '-'")
    if not VERSION_PATTERN.match(version):
        raise ValueError(f"version {version!r} must look like 1.2.3")
    package = {
        "name": name,
        "publisher": publisher,
        "displayName": display_name,
        "description": description,
        "version": version,
        "engines": {"vscode": "^1.60.0"},
        "categories": ["Other"],
        "contributes": {},
    }
    manifest = f"""<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">
<Metadata>
<Identity Language="en-US" Id="{escape(name)}" Version="{escape(version)}" Publisher="{escape(publisher)}"/>
<DisplayName>{escape(display_name)}</DisplayName>
<Description xml:space="preserve">{escape(description)}</Description>
<Categories>Other</Categories>
<Properties><Property Id="Microsoft.VisualStudio.Code.Engine" Value="^1.60.0"/></Properties>
</Metadata>
<Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation>
<Dependencies/>
<Assets><Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/></Assets>
</PackageManifest>
"""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("extension.vsixmanifest", manifest)
        archive.writestr("extension/package.json", json.dumps(package, indent=2))
        archive.writestr("extension/README.md", f"# {display_name}\n\n{description}\n")
    return buffer.getvalue()
