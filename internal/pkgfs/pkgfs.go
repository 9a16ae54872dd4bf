// Package pkgfs is where kpt packages meet the disk: a package folder is
// read through os.Root (nothing outside it can be reached, a symbolic link
// leading out is an error; read.go), and written all or nothing, under a
// lock (write.go, tx.go, journal.go, lock.go).
package pkgfs
