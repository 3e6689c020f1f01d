-- What `luarocks test` runs (the rockspec's test section): the busted suite on the
-- interpreter LuaRocks chose, against the module `luarocks make` built in the source tree.
local lua = arg and arg[-1] or "lua"
local command = string.format("busted --lua=%s --cpath=./?.so", lua)
print(command)
local ok, _, code = os.execute(command)
if type(ok) == "number" then code = ok end -- Lua 5.1: the status alone
if ok ~= true and code ~= 0 then os.exit(1) end
