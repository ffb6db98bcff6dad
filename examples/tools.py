"""Custom tools for agent-platform. Copy this file as tools.py into the directory you start the server from
(or point `--tools PATH` at it). No install needed: the server runs it with python3.

`tools` is a list of (definition, function) pairs. The function is called with the arguments as named
parameters and returns anything JSON can carry. `async def` functions run concurrently; a plain `def` runs in a
thread, so a slow one does not hold up the others. print() output goes to the server's log.
"""

import asyncio


def _forecast_for(city):
    # Made-up but stable figures, so the demo works offline.
    seed = sum(ord(char) for char in city.lower())
    conditions = ["sunny", "cloudy", "rainy", "windy", "foggy"][seed % 5]
    return {"celsius": seed % 35 - 5, "conditions": conditions}


async def get_weather(city, unit="celsius"):
    await asyncio.sleep(0.01)  # stands in for a real HTTP request
    forecast = _forecast_for(city)
    celsius = forecast["celsius"]
    temperature = round(celsius * 9 / 5 + 32) if unit == "fahrenheit" else celsius
    return {"city": city, "temperature": temperature, "unit": unit, "conditions": forecast["conditions"]}


def convert_temperature(value, to="fahrenheit"):
    """A plain (sync) function works too."""
    if to == "fahrenheit":
        return {"value": round(value * 9 / 5 + 32, 1), "unit": "fahrenheit"}
    if to == "celsius":
        return {"value": round((value - 32) * 5 / 9, 1), "unit": "celsius"}
    raise ValueError(f"unknown unit {to!r}; use celsius or fahrenheit")


tools = [
    (
        {
            "name": "get_weather",
            "description": "Current weather for a city (demo data, works offline).",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name, e.g. Paris"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Default celsius"},
                },
                "required": ["city"],
            },
        },
        get_weather,
    ),
    (
        {
            "name": "convert_temperature",
            "description": "Converts a temperature between celsius and fahrenheit.",
            "parameters": {
                "type": "object",
                "properties": {
                    "value": {"type": "number"},
                    "to": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["value"],
            },
        },
        convert_temperature,
    ),
]
