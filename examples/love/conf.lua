-- A Lua error would otherwise leave LÖVE on its error screen for ever (a hung test): print
-- it and quit with code 1. Defined here so that it also covers errors in main.lua's require.
function love.errorhandler(msg)
  io.stderr:write("LUA ERROR: " .. debug.traceback(tostring(msg), 2) .. "\n")
  return function() return 1 end
end

function love.conf(t)
  t.identity = "astar-demo"
  t.window.title = "astar: a crowd in a frame budget"
  t.window.width, t.window.height, t.window.vsync = 1024, 560, 1
  t.modules.audio, t.modules.sound, t.modules.joystick = false, false, false
end
