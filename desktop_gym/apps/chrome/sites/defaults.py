"""The sites' built-in data, used for every part ``site.json`` does not override. Standard library only."""

from __future__ import annotations

import copy
import json
from typing import Any

_USERS = {"alice": "wonderland", "bob": "builder42"}

# (sku, name, category, price): 20 products, 6 of them laptops, so a search pages (5 a page).
_PRODUCTS = [
    ("LAP-1001", "Aurora 14 Laptop", "laptops", 899.0),
    ("LAP-1002", "Aurora 16 Laptop", "laptops", 1149.0),
    ("LAP-1003", "Nimbus Air Laptop", "laptops", 749.5),
    ("LAP-1004", "Nimbus Pro Laptop", "laptops", 1399.0),
    ("LAP-1005", "Granite Rugged Laptop", "laptops", 1599.99),
    ("LAP-1006", "Pebble Kids Laptop", "laptops", 329.0),
    ("HDP-2001", "Quiet Wave Headphones", "audio", 199.0),
    ("HDP-2002", "Studio Monitor Headphones", "audio", 149.0),
    ("SPK-2003", "Pocket Bluetooth Speaker", "audio", 59.99),
    ("EAR-2004", "Sport Wireless Earbuds", "audio", 89.0),
    ("KEY-3001", "Clicky Mechanical Keyboard", "keyboards", 119.0),
    ("KEY-3002", "Slim Wireless Keyboard", "keyboards", 49.99),
    ("KEY-3003", "Ergo Split Keyboard", "keyboards", 169.0),
    ("MOU-4001", "Precision Wireless Mouse", "mice", 39.99),
    ("MOU-4002", "Vertical Ergo Mouse", "mice", 54.0),
    ("MON-5001", "ClearView 24 Monitor", "monitors", 189.0),
    ("MON-5002", "ClearView 27 Monitor", "monitors", 279.0),
    ("MON-5003", "UltraWide 34 Monitor", "monitors", 549.0),
    ("CAB-6001", "USB-C Charging Cable", "cables", 12.5),
    ("CAB-6002", "HDMI 2.1 Cable", "cables", 15.0),
]

_ORDERS_CSV = """order_id,date,customer,sku,quantity,unit_price
1001,2024-03-01,Ana Souza,LAP-1001,1,899.00
1002,2024-03-01,Ben Okafor,MOU-4001,2,39.99
1003,2024-03-02,Chen Wei,KEY-3001,1,119.00
1004,2024-03-03,Dara Quinn,MON-5002,2,279.00
1005,2024-03-03,Ana Souza,CAB-6001,3,12.50
1006,2024-03-04,Eli Novak,HDP-2001,1,199.00
1007,2024-03-05,Farah Idris,LAP-1003,1,749.50
1008,2024-03-05,Ben Okafor,SPK-2003,1,59.99
1009,2024-03-06,Gus Lindqvist,KEY-3002,4,49.99
1010,2024-03-07,Chen Wei,MON-5003,1,549.00
"""

_NOTES_TXT = """Shop notes - March
- Restock USB-C cables before the 15th.
- The spring sale starts on 2024-03-20.
- Call the monitor supplier about order 1010.
"""

_REPORT = {
    "period": "2024-03",
    "orders": 10,
    "revenue": 4214.92,
    "top_category": "laptops",
    "returns": [{"order_id": 1004, "reason": "damaged box"}],
}

_ARTICLES = [
    (
        "city-opens-new-library",
        "City Opens New Central Library",
        "2024-03-04",
        "The new central library opened its doors on Monday after three years of building work. "
        "It holds more than 400,000 books and a floor of quiet study rooms.\n\n"
        "Visitors queued from early morning. The library is open every day from 8 am to 9 pm, "
        "and a free shuttle runs from the railway station every twenty minutes.",
    ),
    (
        "river-festival-returns",
        "River Festival Returns This Summer",
        "2024-03-06",
        "The river festival returns on 15 June with boat races, food stalls and an evening "
        "lantern parade along the east bank.\n\n"
        "Organisers expect around 30,000 visitors over the weekend. Roads near the old bridge "
        "close to traffic from Friday evening.",
    ),
    (
        "tram-line-extension-approved",
        "Tram Line Extension Approved",
        "2024-03-08",
        "The council approved a 6 km extension of the number 3 tram line to the university campus. "
        "Work starts next spring and should take two years.\n\n"
        "Eight new stops are planned. The council says trams will run every seven minutes at peak times.",
    ),
    (
        "local-team-wins-cup",
        "Local Team Wins the Regional Cup",
        "2024-03-10",
        "The Harbour Hawks won the regional cup 3-1 on Sunday, their first title in eleven years.\n\n"
        "Captain Mia Torres scored twice in the second half. The team is welcomed home with a parade "
        "through the market square on Wednesday.",
    ),
    (
        "spring-weather-outlook",
        "Spring Weather Outlook: Mild and Wet",
        "2024-03-12",
        "Forecasters expect a mild spring with more rain than usual in April. Average temperatures "
        "should be about one degree above the long-term mean.\n\n"
        "Gardeners are advised to wait until May before planting frost-sensitive crops.",
    ),
    (
        "museum-late-nights",
        "Museum Adds Late-Night Openings",
        "2024-03-14",
        "The city museum will stay open until 10 pm on the first Friday of every month, starting in April.\n\n"
        "Late-night visitors get guided tours of the new maritime gallery and live music in the courtyard.",
    ),
]

_POPULATION = {
    "title": "Population by region",
    "columns": ["Region", "Population", "Area (km2)"],
    "rows": [
        ["North Coast", 1284500, 8420],
        ["East Valley", 934200, 5210],
        ["Central Plains", 2415800, 12875],
        ["West Hills", 512300, 6930],
        ["South Bay", 1876100, 3140],
        ["Lake District", 287650, 4560],
        ["Highlands", 143900, 15320],
        ["Capital Area", 3920400, 1185],
    ],
}

_DEFAULT_SITE: dict[str, Any] = {
    "users": _USERS,
    "products": [{"sku": s, "name": n, "category": c, "price": p} for s, n, c, p in _PRODUCTS],
    "files": {
        "orders.csv": _ORDERS_CSV,
        "notes.txt": _NOTES_TXT,
        "report.json": json.dumps(_REPORT, indent=2) + "\n",
    },
    "articles": [{"slug": s, "title": t, "date": d, "body": b} for s, t, d, b in _ARTICLES],
    "tables": {"population": _POPULATION},
}


def default_site() -> dict[str, Any]:
    """The built-in site data (a fresh copy): ``users``, ``products``, ``files``, ``articles``, ``tables``."""
    return copy.deepcopy(_DEFAULT_SITE)
