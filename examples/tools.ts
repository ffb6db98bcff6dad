// Custom tools for agent-platform. Copy this file as tools.ts into the directory you start the server from
// (or point `--tools PATH` at it). Each entry is [definition, function]; the function gets the arguments as one
// object (already checked against `parameters`) and returns anything JSON can carry. Sync functions work too.

interface WeatherArgs {
  city: string;
  unit?: "celsius" | "fahrenheit";
}

// Made-up but stable figures, so the demo works offline.
function forecastFor(city: string): { celsius: number; conditions: string } {
  const seed = [...city.toLowerCase()].reduce((sum, char) => sum + char.charCodeAt(0), 0);
  const conditions = ["sunny", "cloudy", "rainy", "windy", "foggy"][seed % 5]!;
  return { celsius: (seed % 35) - 5, conditions };
}

export const tools = [
  [
    {
      name: "get_weather",
      description: "Current weather for a city (demo data, works offline).",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", description: "City name, e.g. Paris" },
          unit: { type: "string", enum: ["celsius", "fahrenheit"], description: "Default celsius" },
        },
        required: ["city"],
      },
    },
    async ({ city, unit = "celsius" }: WeatherArgs) => {
      const { celsius, conditions } = forecastFor(city);
      const temperature = unit === "fahrenheit" ? Math.round((celsius * 9) / 5 + 32) : celsius;
      return { city, temperature, unit, conditions };
    },
  ],
  [
    {
      name: "add_numbers",
      description: "Adds two numbers.",
      parameters: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
    ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  ],
];
