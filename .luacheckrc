-- luacheck's settings for `luacheck .` (the test command runs it): the library, the specs,
-- the examples and the benchmarks.
std = "max" -- the same files run on Lua 5.1, 5.2, 5.3, 5.4 and LuaJIT
max_line_length = 130
exclude_files = { "build*/**", "lua_modules/**", ".luarocks/**" }
files["spec/**/*_spec.lua"] = { std = "+busted" }
files["examples/love/**/*.lua"] = { std = "+love" } -- LÖVE's globals (luacheck's own std)
files["examples/host/scripts/*.lua"] = { unused_args = false } -- mods: the host's signature
