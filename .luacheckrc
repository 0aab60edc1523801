-- luacheck's settings for lua/ (scripts/test.sh runs it): OpenResty's globals, the project's line width (.prettierrc.json).
std = "ngx_lua"
max_line_length = 200
